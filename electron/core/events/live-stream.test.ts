import assert from 'node:assert/strict'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { silentLogger } from '../logger'
import { EventStreamClient } from './live-stream'
import { eventFixture } from '../testing/event-fixture'
import { waitFor } from '../testing/webhook-receiver'

/** An HTTP server whose every request becomes a stream client of the fixture's events. */
async function streamServer(fixture: Awaited<ReturnType<typeof eventFixture>>, stallTimeoutMs: number) {
  const responses: ServerResponse[] = []
  const clients: EventStreamClient[] = []
  const server = createServer((_request, response) => {
    responses.push(response)
    clients.push(
      new EventStreamClient({
        response,
        source: fixture.service.streamSource,
        live: fixture.service.live,
        filter: { visible: () => true },
        after: fixture.service.lastEventId() ?? '',
        deliveries: false,
        heartbeatMs: 20,
        stallTimeoutMs,
        logger: silentLogger(),
      }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return {
    url,
    responses,
    clients,
    close: async () => {
      for (const client of clients) client.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

function connect(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => request(url, resolve).on('error', reject).end())
}

/**
 * The fixture's events streamed by a server that ends clients stalled for `stallTimeoutMs`, and one client
 * connected to it; both are closed after the test.
 */
async function connectedClient(t: TestContext, stallTimeoutMs: number) {
  const fixture = await eventFixture()
  const server = await streamServer(fixture, stallTimeoutMs)
  t.after(async () => {
    await server.close()
    await fixture.close()
  })
  return { fixture, server, response: await connect(server.url) }
}

test('a client that stops reading costs bounded memory and, once it reads again, misses nothing', async (t) => {
  const { fixture, server, response } = await connectedClient(t, 60_000)
  response.pause()
  await waitFor(() => server.responses.length === 1)
  const padding = 'x'.repeat(2_000)
  const ids: string[] = []
  for (let n = 0; n < 5_000; n++)
    ids.push(fixture.service.emit('A', 'message.received', { n, padding }).event_id)
  const serverSide = server.responses[0]!
  assert.ok(
    serverSide.writableLength < 512 * 1024,
    `server buffer stays small (${serverSide.writableLength} bytes)`,
  )

  const received: string[] = []
  let text = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => {
    text += chunk
    let end: number
    while ((end = text.indexOf('\n\n')) >= 0) {
      const id = /^id: (.+)$/m.exec(text.slice(0, end))?.[1]
      if (id) received.push(id)
      text = text.slice(end + 2)
    }
  })
  response.resume()
  await waitFor(() => received.length === ids.length, 30_000, 'all events streamed')
  assert.deepEqual(received, ids)
})

test('a client that reads nothing for the stall timeout is disconnected', async (t) => {
  const { fixture, server, response } = await connectedClient(t, 200)
  response.pause()
  await waitFor(() => server.responses.length === 1)
  const padding = 'x'.repeat(10_000)
  for (let n = 0; n < 1_000; n++) fixture.service.emit('A', 'message.received', { n, padding })
  // The events reach the stream through the store's commits: under load (PostgreSQL on 2 busy cores) filling
  // the client's buffer can take seconds, so the wait is generous; what is checked is only that it ends.
  await waitFor(() => server.responses[0]!.writableEnded, 30_000, 'the stalled client was ended')
  assert.equal(fixture.service.live.clients, 0)
})

test('an idle stream gets heartbeats', async (t) => {
  const { response } = await connectedClient(t, 60_000)
  let text = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => (text += chunk))
  await waitFor(() => text.includes(': heartbeat\n\n'), 5_000, 'a heartbeat arrived')
  assert.match(text, /^retry: \d+\n\n/)
})
