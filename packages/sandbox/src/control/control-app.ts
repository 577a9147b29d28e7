import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify'
import formBody from '@fastify/formbody'
import { SandboxError, toEnvelope } from '../errors'
import type { Logger } from '../logger'
import type { SandboxControl } from './control-types'
import { registerSandboxRoutes } from './control-routes'

export interface ControlAppOptions {
  logger: Logger
  /** Where the routes answer; `/sandbox` by default. */
  prefix?: string
  /** Largest accepted request body, bytes: media travel as base64 in it. */
  bodyLimit?: number
}

const LOOPBACK_HOST = /^(localhost|[^:]+\.localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i

/** True when a Host header (or an Origin's host) names this machine by a loopback name: a DNS-rebinding guard. */
function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host.trim())
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin)
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.host)
  } catch {
    return false
  }
}

/** Framework and unexpected errors as the control API's codes; anything unknown is an internal error. */
function toSandboxError(error: unknown): SandboxError {
  if (error instanceof SandboxError) return error
  const status = (error as Partial<FastifyError>).statusCode
  if (status === 413)
    return new SandboxError('payload_too_large', 'The request body is larger than the allowed limit.')
  if (status === 415) return new SandboxError('unsupported_media_type')
  if (status !== undefined && status >= 400 && status < 500) return new SandboxError('invalid_body')
  return new SandboxError('internal_error', undefined, { cause: error })
}

function sendError(reply: FastifyReply, error: SandboxError): void {
  reply.code(error.status).type('application/json; charset=utf-8').send(toEnvelope(error))
}

/**
 * The control API as a Fastify instance of its own, not listening, for running the sandbox alone: JSON and
 * form bodies, the error envelope on every path, and requests only from this machine's loopback names.
 * An app that has its own server mounts `registerSandboxRoutes` instead.
 */
export function createControlApp(control: SandboxControl, options: ControlAppOptions): FastifyInstance {
  const log = options.logger.child({ module: 'control' })
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  })

  app.removeContentTypeParser(['application/json'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, {})
    try {
      const parsed: unknown = JSON.parse(text)
      if (parsed === null || (Array.isArray(parsed) && parsed.length === 0)) return done(null, {})
      if (typeof parsed !== 'object' || Array.isArray(parsed)) {
        return done(new SandboxError('invalid_body', 'The JSON body must be an object of named parameters.'))
      }
      done(null, parsed)
    } catch {
      done(new SandboxError('invalid_body', 'The request body is not valid JSON.'))
    }
  })
  void app.register(formBody)

  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onRequest', async (request) => {
    if (closing) throw new SandboxError('unavailable', 'The sandbox is shutting down.')
    if (!isLoopbackHost(request.headers.host)) throw new SandboxError('forbidden_host')
    const origin = request.headers.origin
    if (origin !== undefined && !isLoopbackOrigin(origin)) throw new SandboxError('forbidden_origin')
  })
  app.setNotFoundHandler((_request, reply) => sendError(reply, new SandboxError('not_found')))
  app.setErrorHandler((error, request, reply) => {
    const sandboxError = toSandboxError(error)
    if (sandboxError.status >= 500 && !closing)
      log.error({ err: error, url: request.url.split('?')[0] }, 'request failed')
    sendError(reply, sandboxError)
  })

  void app.register(async (scoped) => registerSandboxRoutes(scoped, control), {
    prefix: options.prefix ?? '/sandbox',
  })
  return app
}
