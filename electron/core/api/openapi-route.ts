import type { TSchema } from '../schema'
import type { Fields } from './params'

/**
 * What the API's document says of a route that is not a flat operation (a download, the live stream, an
 * upload): declared beside the route in its `config.openapi`, as an operation declares its fields and answer.
 * `buildApi` refuses to start with a route under the API prefix that declares neither.
 */
export interface RouteDoc {
  tag: string
  summary: string
  description?: string
  /** Its path parameters (`:name` in the route's URL), each with what it is. */
  params?: Record<string, string>
  /** Its query-string parameters. */
  query?: Fields
  /** The body it reads, when it reads one as a whole (not as parameters). */
  body?: { contentType: string; description: string }
  /** The success answer: a JSON body (its fields beside `status`), or content of another type. */
  answer: { json: Record<string, TSchema> } | { contentType: string; description: string }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route in the API's document (every route under the API prefix that is not an operation). */
    openapi?: RouteDoc
  }
}

/** A route as fastify serves it, with its document entry. */
export interface DocumentedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Its URL under the API prefix, in fastify's form (`/media/:instanceId/:messageId`). */
  url: string
  auth: 'token' | 'operator' | 'none'
  doc: RouteDoc
}

/** `/media/:instanceId/:messageId` → `/media/{instanceId}/{messageId}`. */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}')
}
