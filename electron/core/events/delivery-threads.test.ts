import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type { LinkdeskEvent } from '../contract/events'
import { silentLogger } from '../logger'
import { DeliveryThreads } from './delivery-threads'
import { verifyWebhookSignature, WEBHOOK_HEADERS } from './webhook-signature'

// A receiver in a process of its own (this test's main thread will be busy): it appends each request it gets
// (headers and body) to a file, one JSON line, answers 200, and prints its port.
const RECEIVER = `
const { createServer } = require('node:http')
const { appendFileSync } = require('node:fs')
const file = process.argv[1]
const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    appendFileSync(file, JSON.stringify({ headers: request.headers, body }) + '\\n')
    response.end('ok')
  })
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

interface Received {
  headers: Record<string, string>
  body: string
}

function received(file: string): Received[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Received)
}

/** Blocks this thread (no event loop turn) until the condition holds or the limit passes; whether it held. */
function blockUntil(condition: () => boolean, limitMs: number): boolean {
  const cell = new Int32Array(new SharedArrayBuffer(4))
  const until = Date.now() + limitMs
  while (!condition()) {
    if (Date.now() > until) return false
    Atomics.wait(cell, 0, 0, 20)
  }
  return true
}

function event(n: number): LinkdeskEvent {
  return {
    event: 'message.received',
    event_id: `01JTHREAD${n}`,
    instance_id: 'A',
    timestamp: '1700000000',
    data: { n, text: `hello ${n}` },
  } as unknown as LinkdeskEvent
}

test('a POST handed to the delivery thread reaches the receiver, signed, while the main thread is busy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-threads-'))
  const file = join(dir, 'received')
  const receiver = spawn(process.execPath, ['-e', RECEIVER, file], { stdio: ['ignore', 'pipe', 'inherit'] })
  const threads = new DeliveryThreads(1, silentLogger())
  t.after(async () => {
    await threads.close()
    receiver.kill()
    rmSync(dir, { recursive: true, force: true })
  })
  const port = await new Promise<string>((resolve) =>
    receiver.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  )
  const stop = new AbortController().signal
  const deps = { timeoutMs: 30_000, now: Date.now, stop }
  const post = (n: number) =>
    threads.post(
      'A',
      {
        url: `http://127.0.0.1:${port}/hook`,
        secret: 'whsec_thread',
        events: [event(n)],
        batched: false,
        attempt: 1,
      },
      deps,
    )
  assert.equal((await post(1)).kind, 'delivered', 'the thread is up')

  const posting = post(2)
  // From here this thread runs nothing else until the receiver has the second POST: only a POST built, signed
  // and sent off the main thread can reach it meanwhile (the limit only ends a failing run).
  const arrived = blockUntil(() => received(file).length === 2, 60_000)
  assert.equal(arrived, true, 'the POST reached the receiver while the main thread was blocked')
  assert.equal((await posting).kind, 'delivered')

  const posts = received(file)
  assert.deepEqual(
    posts.map(({ body }) => (JSON.parse(body) as LinkdeskEvent).event_id),
    ['01JTHREAD1', '01JTHREAD2'],
  )
  const { headers, body } = posts[1]!
  assert.equal(headers[WEBHOOK_HEADERS.eventId], '01JTHREAD2')
  assert.equal(headers[WEBHOOK_HEADERS.attempt], '1')
  assert.ok(
    verifyWebhookSignature(
      'whsec_thread',
      headers[WEBHOOK_HEADERS.timestamp]!,
      body,
      headers[WEBHOOK_HEADERS.signature]!,
    ),
    'signed with the webhook secret',
  )
})
