import { AppError } from '../errors'
import { unhandledCase } from '../exhaustive'
import type { FieldSpec } from '../schema'

export { checks, type FieldSpec } from '../schema'

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

export type Fields = Record<string, FieldSpec>

type ValueOf<F extends FieldSpec> = F['type'] extends 'boolean'
  ? boolean
  : F['type'] extends 'integer' | 'number'
    ? number
    : F['type'] extends 'file'
      ? UploadedFile
      : F['type'] extends 'list'
        ? string[]
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
): string | boolean | number | string[] | UploadedFile | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  if (Array.isArray(raw) && spec.type !== 'list')
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
      checkRange(name, spec, value)
      return value
    }
    case 'number': {
      const value =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim())
            ? Number(raw)
            : NaN
      if (!Number.isFinite(value))
        throw new AppError('invalid_parameter', `${name} must be a decimal number, such as -33.8568.`)
      checkRange(name, spec, value)
      return value
    }
    case 'list':
      return readList(name, spec, raw)
    default:
      return unhandledCase(spec.type, 'field type')
  }
}

function checkRange(name: string, spec: FieldSpec, value: number): void {
  if (spec.minimum !== undefined && value < spec.minimum) {
    throw new AppError('invalid_parameter', `${name} must be at least ${spec.minimum}.`)
  }
  if (spec.maximum !== undefined && value > spec.maximum) {
    throw new AppError('invalid_parameter', `${name} must be at most ${spec.maximum}.`)
  }
}

/** A list: an array (JSON, or a repeated key), or one comma-separated string; empty items are dropped. */
function readList(name: string, spec: FieldSpec, raw: unknown): string[] | undefined {
  const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw]
  const list = items.map((item) => {
    if (typeof item === 'number' && Number.isSafeInteger(item)) return String(item)
    if (typeof item !== 'string')
      throw new AppError('invalid_parameter', `${name} must be a list of strings.`)
    if (spec.maxLength !== undefined && item.length > spec.maxLength) {
      throw new AppError(
        'invalid_parameter',
        `Each item of ${name} must be at most ${spec.maxLength} characters.`,
      )
    }
    return item.trim()
  })
  const present = list.filter((item) => item !== '')
  if (spec.maxItems !== undefined && present.length > spec.maxItems) {
    throw new AppError('invalid_parameter', `${name} may list at most ${spec.maxItems} items.`)
  }
  return present.length ? present : undefined
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
