import { ERROR_CODES } from '../errors'
import { unhandledCase } from '../exhaustive'
import type { Limits } from '../config'
import { eventComponents } from './openapi-events'
import { openApiSchema } from './openapi-schema'
import type { Operation } from './operation'
import type { FieldSpec } from './params'

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

function fieldSchema(spec: FieldSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...typeSchema(spec), description: spec.description }
  if (spec.enum) schema.enum = spec.enum
  if (spec.example !== undefined) schema.example = spec.example
  if (spec.minimum !== undefined) schema.minimum = spec.minimum
  if (spec.maximum !== undefined) schema.maximum = spec.maximum
  return schema
}

const errorResponse = { $ref: '#/components/responses/Error' }

/** An object schema; OpenAPI 3.0 forbids an empty `required`, so it is left out when nothing is required. */
function objectSchema(
  properties: Record<string, unknown>,
  required: readonly string[],
): Record<string, unknown> {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }
}

/** The OpenAPI 3 document of the API, made from the operation declarations so it cannot drift from them. */
export function openApiDocument(
  operations: readonly Operation[],
  options: { version: string; limits: Limits; prefix: string },
): Record<string, unknown> {
  const paths: Record<string, unknown> = {}
  const schemas: Record<string, Record<string, unknown>> = {}
  for (const operation of operations) {
    const answer = Object.entries(operation.answer ?? {}).map(([name, schema]) => [
      name,
      openApiSchema(schema, schemas),
    ])
    const secured = operation.auth !== 'none'
    const allFields = Object.entries(operation.fields)
    // A file can only be a multipart part: it is in neither the query string nor a JSON or plain form body.
    const fields = allFields.filter(([, spec]) => spec.type !== 'file')
    const properties = Object.fromEntries(fields.map(([name, spec]) => [name, fieldSchema(spec)]))
    const required = fields.filter(([, spec]) => spec.required).map(([name]) => name)
    const parameters = fields.map(([name, spec]) => ({
      name,
      in: 'query',
      required: spec.required ?? false,
      // A list is the key repeated (`mentions=1&mentions=2`); one comma-separated value is read too.
      ...(spec.type === 'list' ? { style: 'form', explode: true } : {}),
      schema: fieldSchema(spec),
    }))
    if (secured) {
      parameters.unshift({
        name: 'access_token',
        in: 'query',
        required: false,
        schema: { type: 'string', description: 'Access token; or Authorization: Bearer.' },
      })
    }
    const responses = {
      '200': {
        description: 'Success',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                status: { type: 'string', enum: ['success'] },
                ...(answer.length > 0 ? { message: { type: 'string' } } : {}),
                ...Object.fromEntries(answer),
              },
            },
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
      security: secured ? [{ accessToken: [] }, { bearer: [] }] : [],
      responses,
    }
    const token = secured ? { access_token: { type: 'string' } } : {}
    const bodySchema = objectSchema({ ...token, ...properties }, required)
    const multipartSchema = objectSchema(
      { ...token, ...Object.fromEntries(allFields.map(([name, spec]) => [name, fieldSchema(spec)])) },
      required,
    )
    for (const name of [operation.name, ...(operation.aliases ?? [])]) {
      paths[`/${name}`] = {
        get: { ...common, operationId: `${name.replace(/\W/g, '_')}_get`, parameters },
        post: {
          ...common,
          operationId: `${name.replace(/\W/g, '_')}_post`,
          requestBody: {
            content: {
              'application/json': { schema: bodySchema },
              'application/x-www-form-urlencoded': { schema: bodySchema },
              'multipart/form-data': { schema: multipartSchema },
            },
          },
        },
      }
    }
  }
  const { limits } = options
  return {
    openapi: '3.0.3',
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
