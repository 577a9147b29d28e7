import { type Static, type TLiteral, type TSchema, type TUnion, Type } from '@sinclair/typebox'

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
