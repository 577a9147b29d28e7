import { FormatRegistry, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { SandboxError } from '../errors'
import { type ControlRouteDoc, GROUP_PARAM, PHONE_PARAM } from './control-schemas'

/** Base64, standard or URL-safe (OpenAPI's `byte` format): media travel as base64 in JSON bodies. */
FormatRegistry.Set('byte', (value) => /^[A-Za-z0-9+/=\s_-]*$/.test(value))

type Body = Record<string, unknown>

function isObject(value: unknown): value is Body {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The body without the fields a form or a hand-written request leaves blank (`""`, or `null` where the field
 * does not take null): a blank optional field is absent, a blank required one is missing.
 */
function withoutBlanks(schema: TObject, body: Body): Body {
  const kept: Body = {}
  for (const [name, value] of Object.entries(body)) {
    const field = schema.properties[name] as TSchema | undefined
    if (field && (value === '' || value === null) && !Value.Check(field, value)) continue
    kept[name] = field?.type === 'object' && isObject(value) ? withoutBlanks(field as TObject, value) : value
  }
  return kept
}

/** What a schema accepts, in words for an error message ("must be …"). */
function expected(schema: TSchema): string {
  const members = schema.anyOf as TSchema[] | undefined
  if (members) {
    if (members.every((member) => member.const !== undefined))
      return `one of ${members.map((member) => String(member.const)).join(', ')}`
    return members.map((member) => expected(member)).join(' or ')
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  switch (schema.type) {
    case 'string':
      return schema.format === 'byte' ? 'base64' : 'a string'
    case 'boolean':
      return 'true or false'
    case 'integer':
      return schema.minimum === 0 ? 'a whole number, 0 or more' : 'a whole number'
    case 'number':
      return 'a number'
    case 'array':
      return schema.items?.type === 'object' ? 'a list of objects' : 'a list of strings'
    case 'object':
      return 'an object'
    case 'null':
      return 'null'
    default:
      return 'valid'
  }
}

function errorOf(error: ValueError): SandboxError {
  const field = error.path.slice(1).replaceAll('/', '.')
  if (error.type === ValueErrorType.ObjectRequiredProperty)
    return new SandboxError('missing_parameter', `${field} is required.`)
  return new SandboxError('invalid_parameter', `${field} must be ${expected(error.schema)}.`)
}

/**
 * A control route's body, checked against the schema its route declares (the one the API's document shows):
 * a field missing or of the wrong kind is a SandboxError naming it, and nothing runs. A form's fields are text,
 * so a form body is first converted to the schema's kinds (`"true"`, `"5"`); a JSON body must already be.
 */
export function checkedBody<T extends TObject>(request: FastifyRequest, schema: T): Static<T> {
  const raw = isObject(request.body) ? request.body : {}
  const json = /^application\/json\b/i.test(request.headers['content-type'] ?? 'application/json')
  const given = withoutBlanks(schema, raw)
  const body = json ? given : (Value.Convert(schema, given) as Body)
  const error = Value.Errors(schema, body).First()
  if (error) throw errorOf(error)
  return body as Static<T>
}

const PARAMS = { ...PHONE_PARAM, ...GROUP_PARAM }

/** A route's declaration with its path parameters, read from its URL. */
function declared(url: string, doc: Omit<ControlRouteDoc, 'params'>, params = PARAMS): ControlRouteDoc {
  const names = [...url.matchAll(/:(\w+)/g)].map((match) => match[1] as keyof typeof params)
  return names.length === 0
    ? doc
    : { ...doc, params: Object.fromEntries(names.map((name) => [name, params[name]])) }
}

/** Registers a GET route and its declaration. */
export function getRoute(
  app: FastifyInstance,
  url: string,
  doc: Omit<ControlRouteDoc, 'params' | 'body'>,
  handler: (request: FastifyRequest) => unknown,
  params?: ControlRouteDoc['params'],
): void {
  app.get(url, { config: { control: declared(url, doc, params as typeof PARAMS) } }, async (request) =>
    handler(request),
  )
}

/** Registers a POST route whose body is checked against the schema it declares, before the handler runs. */
export function postRoute<B extends TObject>(
  app: FastifyInstance,
  url: string,
  doc: Omit<ControlRouteDoc, 'params' | 'body'> & { body?: B },
  handler: (body: Static<B>, request: FastifyRequest) => unknown,
  params?: ControlRouteDoc['params'],
): void {
  app.post(url, { config: { control: declared(url, doc, params as typeof PARAMS) } }, async (request) =>
    handler((doc.body ? checkedBody(request, doc.body) : {}) as Static<B>, request),
  )
}
