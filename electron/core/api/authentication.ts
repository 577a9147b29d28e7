import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../errors'
import { holdsScope, type Principal } from '../contract/principal'
import { type Authenticator, presentedSession, presentedToken } from './auth'
import { mergeRawParams } from './params'
import { scopeOf } from './scopes'

/** Who may call a route: token (scripts and the window), operator (the window only) or none (anyone here). */
export type AuthRequirement = 'token' | 'operator' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call this route; a route that does not say is open (the UI files, the API docs). */
    auth?: AuthRequirement
    /** The flat operation the route serves (its scope is looked up by this name). */
    operation?: string
    /**
     * Any valid token may reach the route, whatever its scopes: it calls operations on the caller's behalf
     * (the MCP endpoint), each of which checks its own scope.
     */
    scopedPerCall?: true
  }
  interface FastifyRequest {
    /** Who is calling, set by the authentication hook before any handler runs. */
    principal: Principal
  }
}

const ANONYMOUS: Principal = { kind: 'anonymous' }

/**
 * The API's one authentication step: a preHandler (the token may come in the body, parsed by then) that
 * resolves the caller of every route from its declared `config.auth`, refusing unknown credentials (401),
 * too many requests (429), scripts on operator-only routes and tokens without the route's scope
 * (403 insufficient_scope, from `OPERATION_SCOPES`), and leaves the caller on `request.principal`.
 */
export function installAuthentication(
  app: FastifyInstance,
  auth: Authenticator,
  /** The caller a peer authenticated before forwarding the request here, if it is one (never on a single node). */
  forwarded: (headers: FastifyRequest['headers']) => Principal | undefined,
  prefix: string,
): void {
  app.decorateRequest('principal')
  app.addHook('preHandler', async (request) => {
    const required = request.routeOptions.config.auth ?? 'none'
    if (required === 'none') {
      request.principal = ANONYMOUS
      return
    }
    const principal =
      forwarded(request.headers) ??
      auth.authenticate(
        presentedToken(request.headers, mergeRawParams(request.query, request.body)),
        presentedSession(request.headers),
      )
    if (required === 'operator' && principal.kind !== 'operator') {
      throw new AppError('unauthorized', 'This operation is only for the Linkdesk window.')
    }
    const { config } = request.routeOptions
    const scope = scopeOf(config.operation, request.routeOptions.url ?? '', prefix)
    if (!config.scopedPerCall && !holdsScope(principal, scope)) {
      throw new AppError('insufficient_scope', `This access token lacks the ${scope} scope this needs.`, {
        details: { required_scope: scope },
      })
    }
    request.principal = principal
  })
}
