import { type TSchema, Type } from '@sinclair/typebox'
import { existsSync } from 'node:fs'
import type { Server } from 'node:http'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { Limits } from '../config'
import type { Logger } from '../logger'
import type { Authenticator } from './auth'
import { installAuthentication } from './authentication'
import { type CallRouting, NODE_HEADER } from './forwarding'
import { createHttpApp } from './http-app'
import { UI_CSP } from './ui-csp'
import { openApiDocument } from './openapi'
import type { DocumentedRoute } from './openapi-route'
import { type InstanceAccess, type Operation, registerOperations } from './operation'

export const API_PREFIX = '/api/v1'
const DOCS_PREFIX = `${API_PREFIX}/docs`

/**
 * Routes that are not flat operations (live stream, downloads, sandbox control), added under the API prefix.
 * Each declares who may call it in `config.auth` and finds its caller on `request.principal`.
 */
export type RoutePlugin = (
  app: FastifyInstance,
  context: {
    access: InstanceAccess
    prefix: string
    operations: readonly Operation[]
    /** Paths whose other verbs answer 405 rather than 404 (as a protocol served there requires). */
    knownPaths: Set<string>
  },
) => void

export interface ApiOptions {
  logger: Logger
  limits: Limits
  configuredHost: string | readonly string[]
  version: string
  auth: Authenticator
  /** The instance a caller may touch (the registry's ownership check). */
  access: InstanceAccess
  operations: readonly Operation[]
  plugins?: readonly RoutePlugin[]
  /** The built renderer, served at `/`. */
  uiDir?: string
  /** Where calls run (here, or on the peer that owns their instance), and the callers peers forward. */
  calls: CallRouting
  /** A server already listening (the core's bound port); without it the app makes its own. */
  server?: Server
}

/**
 * The routes under the API prefix that are not operations, each with its document entry, read once the app
 * is ready (a plugin's own hooks may add to a route's config after this one sees it). A route there without
 * an entry stops the app from starting: every served route is in the document. The docs UI's pages and
 * files are left out: they show the document.
 */
function routeRecorder(app: FastifyInstance, operationPaths: ReadonlySet<string>): () => DocumentedRoute[] {
  const registered: RouteOptions[] = []
  app.addHook('onRoute', (route) => {
    const { url } = route
    if (!url.startsWith(`${API_PREFIX}/`) || operationPaths.has(url)) return
    if (url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`)) return
    registered.push(route)
  })
  return () => {
    const routes: DocumentedRoute[] = []
    for (const route of registered) {
      const doc = route.config?.openapi
      if (!doc)
        throw new Error(`${route.url} is served without an entry in the API's document (config.openapi).`)
      const methods = (Array.isArray(route.method) ? route.method : [route.method]) as string[]
      // fastify answers HEAD beside every GET by itself; no route here declares one of its own.
      for (const method of methods.filter((name) => name !== 'HEAD')) {
        // A plugin's `/` under its prefix is served with and without the trailing slash: one entry.
        const url = route.url.slice(API_PREFIX.length).replace(/(.)\/$/, '$1')
        if (routes.some((known) => known.method === method && known.url === url)) continue
        const auth = route.config?.auth ?? 'none'
        routes.push({ method: method as DocumentedRoute['method'], url, auth, doc })
      }
    }
    return routes
  }
}

/** What `/openapi.json` answers: an OpenAPI document, an object. */
const DOCUMENT_SCHEMA: TSchema = Type.Object({
  openapi: Type.String(),
  info: Type.Object({ title: Type.String(), version: Type.String() }),
  paths: Type.Record(Type.String(), Type.Object({})),
  components: Type.Object({}),
})

/** Builds the HTTP app (v1 operations, docs, UI) without listening, so tests and entries start it as they need. */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const knownPaths = new Set<string>()
  const app = createHttpApp({
    logger: options.logger,
    bodyLimit: options.limits.bodyBytes,
    fileLimit: options.limits.mediaBytes,
    configuredHost: options.configuredHost,
    knownPaths: () => knownPaths,
    server: options.server,
  })

  const { access, calls } = options
  installAuthentication(app, options.auth, calls.forwarded, API_PREFIX)
  const { nodeId } = calls
  // A node with a name (in a cluster) says on every answer which node ran the operation.
  if (nodeId !== undefined) {
    app.addHook('onSend', async (_request, reply) => {
      if (!reply.hasHeader(NODE_HEADER)) reply.header(NODE_HEADER, nodeId)
    })
  }
  registerOperations(app, API_PREFIX, options.operations, access, knownPaths, calls.route)
  // The operations' paths as they are now: a plugin's path added to knownPaths is still a route to document.
  const documentedRoutes = routeRecorder(app, new Set(knownPaths))
  for (const plugin of options.plugins ?? [])
    plugin(app, { access, prefix: API_PREFIX, operations: options.operations, knownPaths })

  // The plugins' routes are registered once the app loads them: the document is completed when it is ready.
  const document: Record<string, unknown> = {}
  app.addHook('onReady', async () => {
    Object.assign(
      document,
      openApiDocument(options.operations, documentedRoutes(), {
        version: options.version,
        limits: options.limits,
        prefix: API_PREFIX,
      }),
    )
  })
  app.get(
    `${API_PREFIX}/openapi.json`,
    {
      config: {
        auth: 'none',
        openapi: {
          tag: 'Service',
          summary: 'This document.',
          answer: { schema: DOCUMENT_SCHEMA, description: 'The OpenAPI 3.1 document of the API.' },
        },
      },
    },
    async () => document,
  )
  await app.register(swagger, { mode: 'static', specification: { document: document as never } })
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true })

  if (options.uiDir && existsSync(options.uiDir)) {
    await app.register(fastifyStatic, {
      root: options.uiDir,
      prefix: '/',
      index: ['index.html'],
      setHeaders: (response) => {
        response.setHeader('content-security-policy', UI_CSP)
        response.setHeader('x-content-type-options', 'nosniff')
        response.setHeader('referrer-policy', 'no-referrer')
      },
    })
  }
  return app
}
