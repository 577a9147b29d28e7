import { Type } from '@sinclair/typebox'
import { ERROR_CODES } from '../errors'
import { unhandledCase } from '../exhaustive'
import type { Limits } from '../config'
import type { TSchema } from '../schema'
import { eventComponents } from './openapi-events'
import { openApiSchema } from './openapi-schema'
import type { Operation } from './operation'
import type { FieldSpec } from './params'
import { type DocumentedRoute, openApiPath, type RouteDoc } from './openapi-route'

function typeSchema(spec: FieldSpec): Record<string, unknown> {
  switch (spec.type) {
    case 'file':
      return { type: 'string', format: 'binary' }
    case 'list': {
      const item = spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }
      return {
        type: 'array',
        items: { type: 'string', ...item },
        ...(spec.maxItems ? { maxItems: spec.maxItems } : {}),
      }
    }
    case 'string':
      return { type: 'string', ...(spec.maxLength === undefined ? {} : { maxLength: spec.maxLength }) }
    case 'boolean':
    case 'integer':
    case 'number':
      return { type: spec.type }
    default:
      return unhandledCase(spec.type, 'field type')
  }
}

/** A parameter's JSON schema, as the document (and the MCP tools' input) states it. */
export function fieldSchema(spec: FieldSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...typeSchema(spec), description: spec.description }
  if (spec.enum) schema.enum = spec.enum
  if (spec.example !== undefined) schema.example = spec.example
  if (spec.minimum !== undefined) schema.minimum = spec.minimum
  if (spec.maximum !== undefined) schema.maximum = spec.maximum
  return schema
}

const errorResponse = { $ref: '#/components/responses/Error' }

/** An object schema; left without `required` when nothing is required. */
function objectSchema(
  properties: Record<string, unknown>,
  required: readonly string[],
): Record<string, unknown> {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }
}

/** The success answer's JSON: `status` and the declared fields (required unless declared Optional). */
export function successSchema(
  answer: Record<string, TSchema> | undefined,
  schemas: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  return openApiSchema(Type.Object({ status: Type.Literal('success'), ...answer }), schemas)
}

function queryParameters(
  fields: Array<[string, FieldSpec]>,
  secured: boolean,
): Array<Record<string, unknown>> {
  const parameters: Array<Record<string, unknown>> = fields.map(([name, spec]) => ({
    name,
    in: 'query',
    required: spec.required ?? false,
    // A list is the key repeated (`mentions=1&mentions=2`); one comma-separated value is read too.
    ...(spec.type === 'list' ? { style: 'form', explode: true } : {}),
    schema: fieldSchema(spec),
  }))
  if (secured)
    parameters.unshift({ name: 'access_token', in: 'query', required: false, schema: TOKEN_SCHEMA })
  return parameters
}

const TOKEN_SCHEMA = {
  type: 'string',
  description:
    'The access token: here (the seed’s way), in the query string, or as Authorization: Bearer; one of them is needed.',
}

/**
 * GET takes the token in the query string or a bearer header; a POST may carry it in its body too, as the
 * seed's send_message does. OpenAPI has no body credential, so a POST's security also lists the empty
 * requirement, and its body declares `access_token`: validators then let a body token through to the server,
 * which answers 401 without one.
 */
const GET_SECURITY = [{ accessToken: [] }, { bearer: [] }]
const POST_SECURITY = [...GET_SECURITY, {}]

function operationPaths(
  operation: Operation,
  schemas: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const paths: Record<string, unknown> = {}
  const secured = operation.auth !== 'none'
  const allFields = Object.entries(operation.fields)
  // A file can only be a multipart part: it is in neither the query string nor a JSON or plain form body.
  const fields = allFields.filter(([, spec]) => spec.type !== 'file')
  const properties = Object.fromEntries(fields.map(([name, spec]) => [name, fieldSchema(spec)]))
  const required = fields.filter(([, spec]) => spec.required).map(([name]) => name)
  const responses = {
    '200': {
      description: 'Success',
      content: {
        'application/json': {
          schema: successSchema(operation.answer, schemas),
          ...(operation.example ? { example: operation.example } : {}),
        },
      },
    },
    '4XX': errorResponse,
    '5XX': errorResponse,
  }
  const common = {
    tags: [operation.tag],
    summary: operation.summary,
    description: [
      operation.description,
      operation.aliases?.length ? `Also answers at: ${operation.aliases.join(', ')}.` : undefined,
    ]
      .filter(Boolean)
      .join('\n\n'),
    responses,
  }
  const token = secured ? { access_token: TOKEN_SCHEMA } : {}
  const bodySchema = objectSchema({ ...token, ...properties }, required)
  const multipartSchema = objectSchema(
    { ...token, ...Object.fromEntries(allFields.map(([name, spec]) => [name, fieldSchema(spec)])) },
    required,
  )
  const examples = operation.requestExamples ? { examples: operation.requestExamples } : {}
  for (const name of [operation.name, ...(operation.aliases ?? [])]) {
    paths[`/${name}`] = {
      get: {
        ...common,
        operationId: `${name.replace(/\W/g, '_')}_get`,
        security: secured ? GET_SECURITY : [],
        parameters: queryParameters(fields, secured),
      },
      post: {
        ...common,
        operationId: `${name.replace(/\W/g, '_')}_post`,
        security: secured ? POST_SECURITY : [],
        requestBody: {
          content: {
            'application/json': { schema: bodySchema, ...examples },
            'application/x-www-form-urlencoded': { schema: bodySchema },
            'multipart/form-data': { schema: multipartSchema },
          },
        },
      },
    }
  }
  return paths
}

/** A route's body: a schema's JSON (or the same as a form), or raw content of its type. */
function requestBody(
  body: NonNullable<RouteDoc['body']>,
  schemas: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  if ('contentType' in body) {
    const content = { [body.contentType]: { schema: { type: 'string', format: 'binary' } } }
    return { required: true, description: body.description, content }
  }
  const schema = openApiSchema(body.schema, schemas)
  const content = { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } }
  return { required: true, description: body.description, content }
}

/** A route's success content: JSON of its schema, or a file of one of its types. */
function answerContent(
  answer: RouteDoc['answer'],
  schemas: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  if ('json' in answer) return { 'application/json': { schema: successSchema(answer.json, schemas) } }
  if ('schema' in answer)
    return {
      'application/json': {
        schema: { ...openApiSchema(answer.schema, schemas), description: answer.description },
      },
    }
  const file = { type: 'string', format: 'binary', description: answer.description }
  return Object.fromEntries(answer.contentTypes.map((type) => [type, { schema: { ...file } }]))
}

/** A route's entry: its path parameters, query, body and answer, as its `config.openapi` declares them. */
function routeOperation(
  route: DocumentedRoute,
  schemas: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const { doc } = route
  const secured = route.auth !== 'none'
  const path = Object.entries(doc.params ?? {}).map(([name, { description, example }]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', description, example },
    example,
  }))
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    operationId: `${route.url.replace(/^\//, '').replace(/\W+/g, '_')}_${route.method.toLowerCase()}`,
    security: secured ? GET_SECURITY : [],
    parameters: [...path, ...queryParameters(Object.entries(doc.query ?? {}), secured)],
    ...(doc.body ? { requestBody: requestBody(doc.body, schemas) } : {}),
    responses: {
      '200': { description: 'Success', content: answerContent(doc.answer, schemas) },
      '4XX': errorResponse,
      '5XX': errorResponse,
    },
  }
}

/**
 * The OpenAPI 3.1 document of the API, made from the operation declarations and the other routes'
 * `config.openapi`, so it cannot drift from what is served.
 */
export function openApiDocument(
  operations: readonly Operation[],
  routes: readonly DocumentedRoute[],
  options: { version: string; limits: Limits; prefix: string },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  const schemas: Record<string, Record<string, unknown>> = {}
  for (const operation of operations) Object.assign(paths, operationPaths(operation, schemas))
  for (const route of routes) {
    const path = openApiPath(route.url)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: routeOperation(route, schemas) }
  }
  const { limits } = options
  return {
    openapi: '3.1.0',
    info: {
      title: 'Linkdesk instance API',
      version: options.version,
      description: [
        'Every operation answers GET and POST; parameters come from the query string, a JSON body, a URL-encoded form or a multipart/form-data body (the body wins). A JSON body of null, {} or [] means no body parameters.',
        'Errors use one envelope: {"status":"error","code","message"}.',
        `Limits: body ${limits.bodyBytes} bytes, text ${limits.textChars} characters, media ${limits.mediaBytes} bytes, ` +
          `media fetch ${limits.mediaFetchMs} ms, ${limits.requestsPerMinute} requests per minute per token, ` +
          `send pacing ${limits.sendIntervalMs} ms + up to ${limits.sendJitterMs} ms jitter, ${limits.sendQueueMax} queued sends per instance.`,
      ].join('\n\n'),
    },
    servers: [{ url: options.prefix }],
    paths,
    components: {
      schemas: { ...schemas, ...eventComponents() },
      securitySchemes: {
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      responses: {
        Error: {
          description: `An error. Codes: ${Object.entries(ERROR_CODES)
            .map(([code, { status }]) => `${code} (${status})`)
            .join(', ')}.`,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['status', 'code', 'message'],
                properties: {
                  status: { type: 'string', enum: ['error'] },
                  code: { type: 'string', enum: Object.keys(ERROR_CODES) },
                  message: { type: 'string' },
                  details: { type: 'object' },
                },
              },
            },
          },
        },
      },
    },
  }
}
