import { lookup } from 'node:dns/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** Fastify's default, kept: an idle keep-alive connection stays open this long. */
const KEEP_ALIVE_MS = 72_000

/**
 * The API's port, bound before any part of the core is built: its URL is known from the start (the parts that
 * hand out links are given it), and a taken port fails before any store opens. The HTTP app is built on its
 * server (Fastify's `serverFactory`) and `open` hands it the requests, those that arrived while the core was
 * starting first. Like Fastify's own listen, `localhost` is bound on each of its addresses.
 */
export class BoundPort {
  private constructor(
    readonly server: Server,
    private readonly secondary: readonly Server[],
    private readonly gate: RequestGate,
    /** e.g. http://127.0.0.1:8686 */
    readonly url: string,
  ) {}

  /** Listens on `host` and `port` (0: a free one); rejects (EADDRINUSE) when it is taken. */
  static async bind(host: string, port: number): Promise<BoundPort> {
    const gate = new RequestGate()
    const server = await listening(newServer(gate.handle), host, port)
    const address = server.address()
    const actual = typeof address === 'object' && address ? address.port : port
    const secondary: Server[] = []
    if (host === 'localhost') {
      const addresses = await lookup(host, { all: true }).catch(() => [])
      for (const other of addresses) {
        if (typeof address === 'object' && other.address === address?.address) continue
        // An address that cannot be bound (no IPv6 here) is left out, as Fastify does.
        const extra = await listening(newServer(gate.handle), other.address, actual).catch(() => undefined)
        if (extra) secondary.push(extra)
      }
    }
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actual}`
    return new BoundPort(server, secondary, gate, url)
  }

  /** Hands the requests to the app (once it is ready): those that waited for it, then every later one. */
  open(app: Handler): void {
    this.gate.open(app)
  }

  /** Stops accepting connections; resolves once the open ones are done (idle ones are closed at once). */
  async close(): Promise<void> {
    this.gate.refuse()
    await Promise.all(
      [this.server, ...this.secondary].map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve())
            server.closeIdleConnections()
          }),
      ),
    )
  }
}

/** Holds the requests that arrive before the app is ready, and passes every request to it after. */
class RequestGate {
  private app: Handler | undefined
  private readonly waiting: Array<[IncomingMessage, ServerResponse]> = []

  readonly handle: Handler = (request, response) => {
    if (this.app) this.app(request, response)
    else this.waiting.push([request, response])
  }

  open(app: Handler): void {
    this.app = app
    for (const [request, response] of this.waiting.splice(0)) app(request, response)
  }

  /** The core stops before it was ready: the requests that waited get no answer. */
  refuse(): void {
    for (const [, response] of this.waiting.splice(0)) response.destroy()
  }
}

function newServer(handler: Handler): Server {
  const server = createServer(handler)
  server.keepAliveTimeout = KEEP_ALIVE_MS
  // Fastify's default: no limit on how long a request may take (the live stream stays open).
  server.requestTimeout = 0
  return server
}

function listening(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.off('error', reject)
      resolve(server)
    })
  })
}
