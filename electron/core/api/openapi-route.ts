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
  /** Its path parameters (`:name` in the route's URL), each with what it is and a value to call it with. */
  params?: Record<string, PathParam>
  /** Its query-string parameters. */
  query?: Fields
  /**
   * The body it reads: raw content of a type, read as a whole; or JSON (or a form) of a schema.
   */
  body?: { contentType: string; description: string } | { schema: TSchema; description: string }
  /**
   * The success answer: a JSON body (its fields beside `status`), a JSON body of its own schema, or content of
   * the types listed (`image/*`: any image).
   */
  answer:
    | { json: Record<string, TSchema> }
    | { schema: TSchema; description: string }
    | { contentTypes: readonly string[]; description: string }
}

/** A path parameter: what it is, and an example a tool can call the route with. */
export interface PathParam {
  description: string
  example: string
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

/** The `instanceId` path parameter of a file route (an instance id as create_instance answers it). */
export const INSTANCE_ID_PARAM: PathParam = {
  description: 'The instance id.',
  example: '609ACF283XXXX6F2E1B0A4C5',
}

/** The `messageId` path parameter of a file route. */
export const MESSAGE_ID_PARAM: PathParam = { description: 'The message id.', example: '3EB0C431C26A1916E1A5' }

/**
 * What a stored file is served as: the type it was sent or stored with. WhatsApp's media are images, videos,
 * audio and documents (`application/*`, `text/*`); `*\/*` is any other type a sender declared.
 */
export const FILE_TYPES = ['image/*', 'video/*', 'audio/*', 'application/*', 'text/*', '*/*'] as const
