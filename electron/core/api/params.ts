import { AppError } from '../errors'
import { unhandledCase } from '../exhaustive'

/** A file part of a multipart/form-data body, read into memory within the media limit. */
export class UploadedFile {
  constructor(
    readonly data: Buffer,
    /** The part's filename, as the client sent it ('' when none). */
    readonly fileName: string,
    /** The part's declared Content-Type, if any. */
    readonly contentType: string | undefined,
  ) {}
}

/** How one named parameter is read: its type and constraints, also used for the OpenAPI document. */
export interface FieldSpec {
  /** `file` is a multipart/form-data file part; it cannot come from the query string, JSON or a plain form. */
  type: 'string' | 'boolean' | 'integer' | 'file'
  required?: boolean
  description: string
  maxLength?: number
  enum?: readonly string[]
  /** Extra check on a string value; returns a reason when the value is not acceptable. */
  check?: (value: string) => string | undefined
  example?: string | boolean | number
  minimum?: number
  maximum?: number
}

export type Fields = Record<string, FieldSpec>

type ValueOf<F extends FieldSpec> = F['type'] extends 'boolean'
  ? boolean
  : F['type'] extends 'integer'
    ? number
    : F['type'] extends 'file'
      ? UploadedFile
      : string

/** The typed parameters of an operation: required fields are present, optional ones may be undefined. */
export type ParamsOf<F extends Fields> = {
  [K in keyof F]: F[K]['required'] extends true ? ValueOf<F[K]> : ValueOf<F[K]> | undefined
}

/** Query string and body merged into one bag of raw values; the body wins. */
export function mergeRawParams(query: unknown, body: unknown): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const source of [query, body]) {
    if (source && typeof source === 'object' && !Array.isArray(source) && !Buffer.isBuffer(source)) {
      Object.assign(merged, source)
    }
  }
  return merged
}

function readOne(
  name: string,
  spec: FieldSpec,
  raw: unknown,
): string | boolean | number | UploadedFile | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  if (Array.isArray(raw))
    throw new AppError('invalid_parameter', `${name} was given more than once; give it once.`)
  if (raw instanceof UploadedFile && spec.type !== 'file') {
    throw new AppError('invalid_parameter', `${name} must be a plain form field, not a file.`)
  }
  switch (spec.type) {
    case 'file': {
      if (!(raw instanceof UploadedFile)) {
        throw new AppError('invalid_parameter', `${name} must be a file part of a multipart/form-data body.`)
      }
      return raw
    }
    case 'string': {
      if (typeof raw !== 'string') throw new AppError('invalid_parameter', `${name} must be a string.`)
      if (spec.maxLength !== undefined && raw.length > spec.maxLength) {
        throw new AppError('invalid_parameter', `${name} must be at most ${spec.maxLength} characters.`)
      }
      if (spec.enum && !spec.enum.includes(raw)) {
        throw new AppError('invalid_parameter', `${name} must be one of: ${spec.enum.join(', ')}.`)
      }
      const reason = spec.check?.(raw)
      if (reason) throw new AppError('invalid_parameter', `${name} ${reason}`)
      return raw
    }
    case 'boolean': {
      if (raw === true || raw === 'true') return true
      if (raw === false || raw === 'false') return false
      throw new AppError('invalid_parameter', `${name} must be true or false.`)
    }
    case 'integer': {
      const value =
        typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : NaN
      if (!Number.isSafeInteger(value))
        throw new AppError('invalid_parameter', `${name} must be a whole number.`)
      if (spec.minimum !== undefined && value < spec.minimum) {
        throw new AppError('invalid_parameter', `${name} must be at least ${spec.minimum}.`)
      }
      if (spec.maximum !== undefined && value > spec.maximum) {
        throw new AppError('invalid_parameter', `${name} must be at most ${spec.maximum}.`)
      }
      return value
    }
    default:
      return unhandledCase(spec.type, 'field type')
  }
}

/** Reads and validates the declared fields; unknown extra fields are ignored, as hosted APIs do. */
export function readParams<F extends Fields>(fields: F, raw: Record<string, unknown>): ParamsOf<F> {
  const params: Record<string, unknown> = {}
  const missing = Object.entries(fields).filter(([name, spec]) => spec.required && isAbsent(raw[name]))
  if (missing.length > 0) {
    const names = missing.map(([name]) => name)
    throw new AppError(
      'missing_parameter',
      `Missing required parameter${names.length > 1 ? 's' : ''}: ${names.join(', ')}.`,
      {
        details: { parameters: names },
      },
    )
  }
  for (const [name, spec] of Object.entries(fields)) params[name] = readOne(name, spec, raw[name])
  return params as ParamsOf<F>
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
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
