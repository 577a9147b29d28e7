import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A webhook receiver on loopback that answers 200 (or `answer`) and keeps what it accepted. */
export interface WebhookReceiver {
  url: string
  /** Every event accepted (answered 2xx), a batch's one by one. */
  received: { event: string; event_id: string; data?: Record<string, unknown> }[]
  /** The HTTP status it answers from now on (200 unless set). */
  answer: number
  /** How many POSTs carried a batch (a JSON array of events). */
  batches: number
  close(): Promise<void>
}

export async function startWebhookReceiver(answer = 200): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = []
  const receiver = { batches: 0, answer }
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const status = receiver.answer
      if (status < 300) {
        const parsed = JSON.parse(body) as WebhookReceiver['received'][number] | WebhookReceiver['received']
        if (Array.isArray(parsed)) receiver.batches += 1
        received.push(...(Array.isArray(parsed) ? parsed : [parsed]))
      }
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'refused')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    get batches() {
      return receiver.batches
    },
    get answer() {
      return receiver.answer
    },
    set answer(status: number) {
      receiver.answer = status
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
