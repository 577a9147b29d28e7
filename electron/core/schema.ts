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

/** How one named parameter is read: its type and constraints, also used for the OpenAPI document. */
export interface FieldSpec {
  /**
   * `file` is a multipart/form-data file part; it cannot come from the query string, JSON or a plain form.
   * `number` is a decimal (`-33.8568`), as a JSON number or a string. `list` is a list of strings: a JSON
   * array, the key repeated (`mentions=1&mentions=2`, in a query string or a form), or one comma-separated value.
   */
  type: 'string' | 'boolean' | 'integer' | 'number' | 'list' | 'file'
  required?: boolean
  description: string
  /** For strings, and for each item of a list. */
  maxLength?: number
  /** For lists. */
  maxItems?: number
  enum?: readonly string[]
  /** Extra check on a string value; returns a reason when the value is not acceptable. */
  check?: (value: string) => string | undefined
  example?: string | boolean | number | readonly string[]
  minimum?: number
  maximum?: number
}

/** Reasons for common string shapes, used as FieldSpec.check. */
export const checks = {
  httpUrl(value: string): string | undefined {
    try {
      const url = new URL(value)
      return url.protocol === 'http:' || url.protocol === 'https:'
        ? undefined
        : 'must be an http:// or https:// URL.'
    } catch {
      return 'must be an http:// or https:// URL.'
    }
  },
}
