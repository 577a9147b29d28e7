import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A webhook receiver on loopback that answers 200 and keeps what it received. */
export interface WebhookReceiver {
  url: string
  /** Every event received, a batch's one by one. */
  received: { event: string; event_id: string }[]
  /** How many POSTs carried a batch (a JSON array of events). */
  batches: number
  close(): Promise<void>
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = []
  const receiver = { batches: 0 }
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const parsed = JSON.parse(body) as WebhookReceiver['received'][number] | WebhookReceiver['received']
      if (Array.isArray(parsed)) receiver.batches += 1
      received.push(...(Array.isArray(parsed) ? parsed : [parsed]))
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
