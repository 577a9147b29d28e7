import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One `message.received` or `message.sent` network message as the receiver saw it. */
export interface SeenMessage {
  /** Every event id it came under (more than one is a duplicate). */
  eventIds: Set<string>
  /** Unix ms of the first POST that carried it, and the node that posted it. */
  firstAt: number
  node: string
}

/** A `connection.update` to `connected`: which node posted it (`x-linkdesk-node`) and when it arrived. */
export interface SeenConnect {
  node: string
  at: number
}

interface PostedEvent {
  event: string
  event_id: string
  instance_id: string
  data: { id?: unknown; state?: unknown }
}

/**
 * The scale bench's webhook receiver, on loopback: every instance's webhook points at it. It keeps only what the
 * bench reads (per message id its event ids and first arrival, per instance when it connected and on which
 * node), not the bodies, so an hour of a thousand accounts' events fits in a few megabytes.
 */
export class ScaleReceiver {
  readonly received = new Map<string, SeenMessage>()
  readonly sent = new Map<string, SeenMessage>()
  readonly connects = new Map<string, SeenConnect[]>()
  posts = 0
  events = 0
  private readonly server: Server

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const at = Date.now()
        const node = String(request.headers['x-linkdesk-node'] ?? '')
        try {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostedEvent | PostedEvent[]
          for (const event of Array.isArray(parsed) ? parsed : [parsed]) this.take(event, node, at)
          this.posts += 1
          response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
        } catch {
          response.writeHead(400, { 'content-type': 'text/plain' }).end('not json')
        }
      })
    })
    this.server.keepAliveTimeout = 60_000
  }

  static async start(): Promise<ScaleReceiver> {
    const receiver = new ScaleReceiver()
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve))
    return receiver
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`
  }

  /** When the instance was first seen connected by a node other than `notOn`, at or after `since`. */
  connectedAfter(instanceId: string, since: number, notOn?: string): number | undefined {
    return this.connects.get(instanceId)?.find(({ node, at }) => at >= since && node !== notOn)?.at
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private take(event: PostedEvent, node: string, at: number): void {
    this.events += 1
    if (event.event === 'connection.update') {
      if (event.data.state !== 'connected') return
      const list = this.connects.get(event.instance_id) ?? []
      list.push({ node, at })
      this.connects.set(event.instance_id, list)
      return
    }
    const kind =
      event.event === 'message.received' ? this.received : event.event === 'message.sent' ? this.sent : null
    if (!kind) return
    const id = String(event.data.id)
    const seen = kind.get(id)
    if (seen) seen.eventIds.add(event.event_id)
    else kind.set(id, { eventIds: new Set([event.event_id]), firstAt: at, node })
  }
}
