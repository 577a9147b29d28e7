import { type Static, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox'
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * The contract's shapes are TypeBox schemas: each is at once a JSON Schema (published in the OpenAPI
 * document, checked at run time) and, through `Static`, the TypeScript type the code uses.
 */
export type { Static, TSchema }

/** A value of the schema, or null. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()])
}

/** One of a fixed list of strings. */
export function OneOf<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  )
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>()

/** Where `value` departs from `schema`, one line per field at fault (`/path: message`); empty when it conforms. */
export function schemaViolations(schema: TSchema, value: unknown): string[] {
  let check = compiled.get(schema)
  if (!check) {
    check = TypeCompiler.Compile(schema)
    compiled.set(schema, check)
  }
  // The compiled check is fast; walking the errors is not, and only a value that fails needs it.
  if (check.Check(value)) return []
  return [...check.Errors(value)].map((error) => `${error.path || '/'}: ${error.message}`)
}
