import type { TSchema } from '../schema'

type JsonSchema = Record<string, unknown>

/**
 * A contract schema as OpenAPI 3.0 states it. TypeBox writes JSON Schema 2020 (`const`, `{"type":"null"}`);
 * OpenAPI 3.0 knows neither, so a union of constants becomes an `enum` and "or null" becomes `nullable`.
 */
export function openApiSchema(schema: TSchema): JsonSchema {
  return convert(JSON.parse(JSON.stringify(schema)) as JsonSchema)
}

function convert(schema: JsonSchema): JsonSchema {
  const { anyOf, const: constant, properties, items, ...rest } = schema
  if (Array.isArray(anyOf)) return convertUnion(anyOf as JsonSchema[], rest)
  const converted: JsonSchema = { ...rest }
  if (constant !== undefined) Object.assign(converted, { type: typeof constant, enum: [constant] })
  if (properties)
    converted.properties = Object.fromEntries(
      Object.entries(properties as Record<string, JsonSchema>).map(([name, value]) => [name, convert(value)]),
    )
  if (items) converted.items = convert(items as JsonSchema)
  return converted
}

function convertUnion(members: JsonSchema[], rest: JsonSchema): JsonSchema {
  const others = members.filter((member) => member.type !== 'null')
  const nullable = others.length < members.length ? { nullable: true } : {}
  if (others.length > 0 && others.every((member) => member.const !== undefined)) {
    const values = others.map((member) => member.const)
    return { type: typeof values[0], enum: values, ...rest, ...nullable }
  }
  if (others.length === 1) {
    const single = convert(others[0]!)
    return { ...single, ...rest, ...nullable }
  }
  return { anyOf: others.map(convert), ...rest, ...nullable }
}

/** `connection.update` → `ConnectionUpdateEvent`: a component name OpenAPI tools turn into readable types. */
export function eventSchemaName(event: string): string {
  return `${event.replace(/(?:^|[._])(\w)/g, (_, letter: string) => letter.toUpperCase())}Event`
}
