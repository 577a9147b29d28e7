import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify'
import { type Server, STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import formBody from '@fastify/formbody'
import { AppError, isAppError, toEnvelope } from '../errors'
import type { Logger } from '../logger'
import { isAllowedHost, isAllowedOrigin } from './local-origin'
import { acceptMultipart } from './multipart-body'

export interface HttpAppOptions {
  logger: Logger
  /** Largest accepted request body, bytes (for multipart bodies: the largest plain field). */
  bodyLimit?: number
  /** Largest file part of a multipart/form-data body, bytes; the body limit unless given. */
  fileLimit?: number
  /**
   * The host names accepted in Host headers besides loopback ones: the host the server was configured to bind
   * (and a cluster node's advertised one, which its peers name).
   */
  configuredHost?: string | readonly string[]
  /** Paths (without query) that exist, so that a wrong verb answers 405 instead of 404. */
  knownPaths?: () => ReadonlySet<string>
  /**
   * A server already listening, whose requests the owner hands to the app once it is ready (`app.routing`);
   * without it the app makes its own, and `listen` starts it.
   */
  server?: Server
}

/**
 * A Fastify instance with the app's HTTP rules installed, not listening: the error envelope on every path
 * (framework errors included), JSON, form and multipart bodies, and the loopback Host and Origin checks.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const log = options.logger.child({ module: 'http' })
  const bodyLimit = options.bodyLimit ?? 1024 * 1024
  const { server } = options
  const app: FastifyInstance = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    // Fastify's own 503 while closing has a bare body: the onRequest hook below answers with the envelope.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler: answerClientError,
    ...(server && { serverFactory: () => server }),
  })

  app.removeContentTypeParser(['application/json'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, {})
    try {
      const parsed: unknown = JSON.parse(text)
      // Clients encode "no body parameters" as null, {} or, like PHP's HTTP clients for an empty array, [].
      if (parsed === null || (Array.isArray(parsed) && parsed.length === 0)) return done(null, {})
      if (typeof parsed !== 'object' || Array.isArray(parsed)) {
        return done(new AppError('invalid_body', 'The JSON body must be an object of named parameters.'))
      }
      done(null, parsed)
    } catch {
      done(new AppError('invalid_body', 'The request body is not valid JSON.'))
    }
  })
  app.register(formBody)
  acceptMultipart(app, { fieldBytes: bodyLimit, fileBytes: options.fileLimit ?? bodyLimit })

  // Requests that still arrive while the server closes (on an open keep-alive connection) are refused.
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })

  // An answer sent while closing ends its connection: one busy when the close began would otherwise idle
  // on until the keep-alive timeout before the close can finish.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })

  app.addHook('onRequest', async (request) => {
    if (closing) throw new AppError('unavailable', 'Linkdesk is shutting down.')
    if (!isAllowedHost(request.headers.host, options.configuredHost)) throw new AppError('forbidden_host')
    const origin = request.headers.origin
    if (origin !== undefined && !isAllowedOrigin(origin, options.configuredHost))
      throw new AppError('forbidden_origin')
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const known = options.knownPaths?.().has(path.replace(/\/$/, ''))
    sendError(reply, new AppError(known ? 'method_not_allowed' : 'not_found'))
  })

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const appError = toAppError(error)
    const refused = closing && appError.code === 'unavailable'
    if (appError.status >= 500 && !refused)
      log.error({ err: error, url: request.url.split('?')[0] }, 'request failed')
    sendError(reply, appError)
  })

  return app
}

/** Errors Node's HTTP parser raises before Fastify sees a request (an oversized URL, a malformed request). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return
  const appError = new AppError(error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'bad_request')
  const body = JSON.stringify(toEnvelope(appError))
  socket.end(
    [
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}`,
      'Connection: close',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
  )
}

function sendError(reply: FastifyReply, error: AppError): void {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(Math.ceil(error.retryAfter)))
  reply.code(error.status).type('application/json; charset=utf-8').send(toEnvelope(error))
}

/** Maps framework and unexpected errors onto the code table; anything unknown is an internal error. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error
  const fastifyError = error as Partial<FastifyError>
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than the allowed limit.')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'Send the body as JSON, a URL-encoded form or multipart/form-data.',
      )
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_body')
    case 'FST_ERR_VALIDATION':
      return new AppError('invalid_parameter', fastifyError.message ?? undefined)
  }
  if (storeUnreachable(error))
    return new AppError('unavailable', 'The database cannot be reached right now; try again in a moment.', {
      cause: error,
      details: { reason: 'store_unavailable' },
    })
  const status = fastifyError.statusCode
  if (status === 413) return new AppError('payload_too_large')
  if (status === 415) return new AppError('unsupported_media_type')
  if (status !== undefined && status >= 400 && status < 500) return new AppError('invalid_body')
  return new AppError('internal_error', undefined, { cause: error })
}

export type { FastifyInstance, FastifyReply }

/**
 * A database that is restarting or out of reach: the connection refused or reset, PostgreSQL's connection
 * exceptions (SQLSTATE class 08) and its shutdown and start-up refusals (57P01 to 57P03). The request may be
 * tried again, so it answers 503, not an internal error.
 */
function storeUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return false
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code.startsWith('08') || /^57P0[123]$/.test(code)
}
