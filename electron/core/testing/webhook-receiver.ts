import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LinkdeskEvent } from '../contract/events'

/** One request a test receiver got, and what it answered. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders
  body: string
  /** The event posted; with a batch, its first. */
  event: LinkdeskEvent
  /** Every event the request carried: one, or a batch's, in order. */
  events: LinkdeskEvent[]
  status: number
  /** Unix milliseconds the request arrived. */
  at: number
}

/** How the receiver answers a request (the n-th it got, from 0). */
export type Responder = (
  delivery: Omit<ReceivedDelivery, 'status' | 'at'>,
  index: number,
) => {
  status: number
  headers?: Record<string, string>
  delayMs?: number
  /** The answer waits until this settles (a backlog builds behind it). */
  after?: Promise<unknown>
}

/** Per network message id, the event ids of the `message.received` events the receiver accepted for it. */
export function eventIdsByMessage(receiver: WebhookReceiver): Map<string, Set<string>> {
  const byMessage = new Map<string, Set<string>>()
  for (const { event } of receiver.accepted()) {
    if (event.event !== 'message.received') continue
    const id = String(event.data.id)
    byMessage.set(id, (byMessage.get(id) ?? new Set()).add(event.event_id))
  }
  return byMessage
}

/** A real webhook receiver on loopback for tests and benchmarks; answers 200 unless told otherwise. */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = []
  private readonly waiters = new Set<() => void>()

  private readonly server: Server

  private constructor(public respond: Responder) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const at = Date.now()
        const body = Buffer.concat(chunks).toString('utf8')
        const parsed = JSON.parse(body) as LinkdeskEvent | LinkdeskEvent[]
        const events = Array.isArray(parsed) ? parsed : [parsed]
        const delivery = { headers: request.headers, body, event: events[0]!, events }
        const answer = this.respond(delivery, this.received.length)
        this.received.push({ ...delivery, status: answer.status, at })
        const reply = () => {
          response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers })
          response.end(answer.status < 300 ? 'ok' : `no (${answer.status})`)
          this.notify()
        }
        if (answer.after) void answer.after.then(reply, reply)
        else if (answer.delayMs) setTimeout(reply, answer.delayMs)
        else reply()
      })
    })
  }

  /** Starts a receiver on 127.0.0.1, on a free port. */
  static async start(respond: Responder = () => ({ status: 200 })): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(respond)
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve))
    return receiver
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`
  }

  /** The deliveries answered with a 2xx, in the order they came. */
  accepted(): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.status < 300)
  }

  /** Resolves once the condition holds (checked after each answer), or rejects after the timeout. */
  until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
    if (condition()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        reject(
          new Error(`receiver: condition not met within ${timeoutMs} ms (${this.received.length} received)`),
        )
      }, timeoutMs)
      const check = () => {
        if (!condition()) return
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve()
      }
      this.waiters.add(check)
    })
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter()
  }
}

/** Resolves once `condition` holds, checking every few milliseconds; rejects after the timeout. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Whether every one of these events has been delivered (its delivery summary says so). */
export async function allDelivered(
  reader: { event(id: string): Promise<{ delivery: { status: string } } | undefined> },
  events: ReadonlyArray<{ event_id: string }>,
): Promise<boolean> {
  const stored = await Promise.all(events.map(({ event_id }) => reader.event(event_id)))
  return stored.every((event) => event?.delivery.status === 'delivered')
}
