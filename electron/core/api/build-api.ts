import { existsSync } from 'node:fs'
import type { Server } from 'node:http'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import type { Limits } from '../config'
import type { Logger } from '../logger'
import type { Authenticator } from './auth'
import { installAuthentication } from './authentication'
import { type CallRouting, NODE_HEADER } from './forwarding'
import { createHttpApp } from './http-app'
import { UI_CSP } from './ui-csp'
import { openApiDocument } from './openapi'
import { type InstanceAccess, type Operation, registerOperations } from './operation'

export const API_PREFIX = '/api/v1'

/**
 * Routes that are not flat operations (live stream, downloads, sandbox control), added under the API prefix.
 * Each declares who may call it in `config.auth` and finds its caller on `request.principal`.
 */
export type RoutePlugin = (app: FastifyInstance, context: { access: InstanceAccess; prefix: string }) => void

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
  for (const plugin of options.plugins ?? []) plugin(app, { access, prefix: API_PREFIX })

  const document = openApiDocument(options.operations, {
    version: options.version,
    limits: options.limits,
    prefix: API_PREFIX,
  })
  app.get(`${API_PREFIX}/openapi.json`, async () => document)
  await app.register(swagger, { mode: 'static', specification: { document: document as never } })
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, staticCSP: true })

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
