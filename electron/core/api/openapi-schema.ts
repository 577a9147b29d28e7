import type { TSchema } from '../schema'

type JsonSchema = Record<string, unknown>

/**
 * A contract schema as OpenAPI 3.0 states it. TypeBox writes JSON Schema 2020 (`const`, `{"type":"null"}`);
 * OpenAPI 3.0 knows neither, so a union of constants becomes an `enum` and "or null" becomes `nullable`.
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
    const { anyOf, const: constant, properties, items, ...rest } = schema
    if (Array.isArray(anyOf)) return this.convertUnion(anyOf as JsonSchema[], rest)
    const converted: JsonSchema = { ...rest }
    if (constant !== undefined) Object.assign(converted, { type: typeof constant, enum: [constant] })
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
    const nullable = others.length < members.length ? { nullable: true } : {}
    if (others.length > 0 && others.every((member) => member.const !== undefined)) {
      const values = others.map((member) => member.const)
      return { type: typeof values[0], enum: values, ...rest, ...nullable }
    }
    if (others.length === 1) {
      const single = this.convert(others[0]!)
      // OpenAPI 3.0 ignores siblings of $ref: a nullable reference is an allOf of one.
      if (single.$ref) return { allOf: [single], ...rest, ...nullable }
      return { ...single, ...rest, ...nullable }
    }
    return { anyOf: others.map((member) => this.convert(member)), ...rest, ...nullable }
  }
}

/** `connection.update` → `ConnectionUpdateEvent`: a component name OpenAPI tools turn into readable types. */
export function eventSchemaName(event: string): string {
  return `${event.replace(/(?:^|[._])(\w)/g, (_, letter: string) => letter.toUpperCase())}Event`
}
