import type { TSchema } from '../schema'

type JsonSchema = Record<string, unknown>

/**
 * A contract schema as the OpenAPI 3.1 document states it. OpenAPI 3.1 speaks JSON Schema 2020, as TypeBox
 * writes it, so "or null" stays `{"type":"null"}` (any schema compiler reads it); only a union of constants
 * becomes an `enum`, which documentation tools show as a list of values.
 */
export function openApiSchema(schema: TSchema, components: Record<string, JsonSchema> = {}): JsonSchema {
  return new Converter(components).convert(JSON.parse(JSON.stringify(schema)) as JsonSchema)
}

/** Converts schemas; one with an `$id` goes into `components` once and is referred to by `$ref`. */
class Converter {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  convert(schema: JsonSchema): JsonSchema {
    const { $id, ...own } = schema
    if (typeof $id !== 'string') return this.convertOwn(own)
    this.components[$id] ??= this.convertOwn(own)
    return { $ref: `#/components/schemas/${$id}` }
  }

  private convertOwn(schema: JsonSchema): JsonSchema {
    const { anyOf, properties, items, ...rest } = schema
    if (Array.isArray(anyOf)) return this.convertUnion(anyOf as JsonSchema[], rest)
    const converted: JsonSchema = { ...rest }
    if (properties)
      converted.properties = Object.fromEntries(
        Object.entries(properties as Record<string, JsonSchema>).map(([name, value]) => [
          name,
          this.convert(value),
        ]),
      )
    if (items) converted.items = this.convert(items as JsonSchema)
    return converted
  }

  private convertUnion(members: JsonSchema[], rest: JsonSchema): JsonSchema {
    const others = members.filter((member) => member.type !== 'null')
    const withNull = others.length < members.length
    if (others.length > 0 && others.every((member) => member.const !== undefined)) {
      const values = others.map((member) => member.const)
      const type = typeof values[0]
      return withNull
        ? { type: [type, 'null'], enum: [...values, null], ...rest }
        : { type, enum: values, ...rest }
    }
    return { anyOf: members.map((member) => this.convert(member)), ...rest }
  }
}

/** `connection.update` → `ConnectionUpdateEvent`: a component name OpenAPI tools turn into readable types. */
export function eventSchemaName(event: string): string {
  return `${event.replace(/(?:^|[._])(\w)/g, (_, letter: string) => letter.toUpperCase())}Event`
}
