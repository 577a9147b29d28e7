// A raw Baileys process for the side-by-side figures: Baileys + Node, in-memory keys, nothing of Linkdesk.
// Driven over the IPC channel by bench/raw/raw-client.ts; run with --expose-gc.
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'
import type { AddressInfo } from 'node:net'
import makeWASocket, {
  Browsers,
  BufferJSON,
  WA_CERT_DETAILS,
  type BinaryNode,
  type WASocket,
} from '@whiskeysockets/baileys'
import pino from 'pino'
import { quietLibsignal } from '@linkdesk/sandbox/testing'
import { createRawAuth, type SavedAuth } from './raw-auth'
import type { RawCommand, RawSendResult } from './raw-protocol'

const MARKER = /bench:(\d+(?:\.\d+)?)/
const wallClock = (): number => performance.timeOrigin + performance.now()
const logger = pino({ level: 'silent' })

interface Account {
  auth: ReturnType<typeof createRawAuth>
  sock?: WASocket
  qrs: string[]
  opens: number
  wake: Set<() => void>
}

const accounts: Account[] = []
const acks = new Map<string, (at: number) => void>()
let wsUrl = ''
let received: { count: number; latencies: number[]; lastAt: number } = { count: 0, latencies: [], lastAt: 0 }

function changed(account: Account): void {
  for (const wake of account.wake) wake()
}

function waitFor<T>(
  account: Account,
  check: () => T | undefined,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const value = check()
      if (value === undefined) return
      clearTimeout(timer)
      account.wake.delete(attempt)
      resolve(value)
    }
    const timer = setTimeout(() => {
      account.wake.delete(attempt)
      reject(new Error(`raw: no ${what} within ${timeoutMs} ms`))
    }, timeoutMs)
    account.wake.add(attempt)
    attempt()
  })
}

/** A socket configured like the app's (no presence, no full history), reconnecting after the 515 restart. */
function connect(account: Account): void {
  const sock = makeWASocket({
    waWebSocketUrl: wsUrl,
    auth: account.auth.state,
    logger,
    browser: Browsers.macOS('Chrome'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
  })
  account.sock = sock
  sock.ev.on('creds.update', (update) => Object.assign(account.auth.state.creds, update))
  sock.ev.on('connection.update', (update) => {
    if (update.qr) account.qrs.push(update.qr)
    if (update.connection === 'open') account.opens++
    if (update.connection === 'close') {
      const code = (update.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined)?.output
        ?.statusCode
      if (account.sock === sock && code !== 401) setImmediate(() => connect(account))
    }
    changed(account)
  })
  sock.ev.on('messages.upsert', ({ messages, type }) => {
    if (type !== 'notify') return
    const now = wallClock()
    for (const message of messages) {
      if (message.key.fromMe) continue
      const text = message.message?.conversation ?? message.message?.extendedTextMessage?.text ?? ''
      const marker = MARKER.exec(text)
      if (!marker) continue
      received.count++
      received.latencies.push(now - Number(marker[1]))
      received.lastAt = now
    }
  })
  sock.ws.on('CB:ack,class:message', (node: BinaryNode) => {
    const id = node.attrs.id
    const done = id ? acks.get(id) : undefined
    if (done && id) {
      acks.delete(id)
      done(performance.now())
    }
  })
}

function account(slot: number): Account & { sock: WASocket } {
  const found = accounts[slot]
  if (!found?.sock) throw new Error(`raw: no account ${slot}`)
  return found as Account & { sock: WASocket }
}

/** One send: ms until sendMessage resolved (frame written) and until the server's ack. */
function sendOne(
  sock: WASocket,
  to: string,
  text: string,
): { written: Promise<number>; acked: Promise<number> } {
  const messageId = `3EB0${randomBytes(8).toString('hex').toUpperCase()}`
  const started = performance.now()
  const acked = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`raw: no ack for ${messageId}`)), 30_000)
    acks.set(messageId, (at) => {
      clearTimeout(timer)
      resolve(at - started)
    })
  })
  const written = sock.sendMessage(to, { text }, { messageId }).then(() => performance.now() - started)
  return { written, acked }
}

/**
 * The reference server: the smallest honest HTTP API over raw Baileys. One route, the body read and parsed,
 * sendMessage called, the answer written once the server acked the message; nothing stored, no events.
 */
function serveReference(): Promise<number> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' })
        response.end(JSON.stringify(body))
      }
      let input: { slot?: number; to?: string; text?: string }
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof input
      } catch {
        return answer(400, { status: 'error', message: 'not JSON' })
      }
      if (request.url !== '/send' || !input.to || !input.text) return answer(404, { status: 'error' })
      const { acked } = sendOne(account(input.slot ?? 0).sock, input.to, input.text)
      acked.then(
        () => answer(200, { status: 'success' }),
        (error: unknown) => answer(502, { status: 'error', message: (error as Error).message }),
      )
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  )
}

async function handle(command: RawCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'init':
      wsUrl = command.wsUrl
      WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(command.rootKeyHex, 'hex')
      return { pid: process.pid }
    case 'create': {
      const created: Account = { auth: createRawAuth(), qrs: [], opens: 0, wake: new Set() }
      const slot = accounts.push(created) - 1
      const started = performance.now()
      connect(created)
      const qr = await waitFor(created, () => created.qrs[0], 'QR')
      return { slot, qr, qrMs: performance.now() - started }
    }
    case 'open': {
      const target = accounts[command.slot]
      if (!target) throw new Error(`raw: no account ${command.slot}`)
      await waitFor(target, () => (target.opens >= command.count ? true : undefined), 'open')
      return { me: target.auth.state.creds.me?.id ?? '' }
    }
    case 'send': {
      const { sock } = account(command.slot)
      const result: RawSendResult = { written: [], acked: [], seconds: 0, ackedSeconds: 0, cpuSeconds: 0 }
      const pendingAcks: Array<Promise<void>> = []
      const cpu = process.cpuUsage()
      const started = performance.now()
      let next = 0
      const chats = typeof command.to === 'string' ? [command.to] : command.to
      const lane = async (_: unknown, index: number): Promise<void> => {
        const to = chats[index % chats.length] as string
        while (next < command.count) {
          next++
          const times = sendOne(sock, to, `bench ${next}`)
          const written = await times.written
          result.written.push(written)
          const acked = times.acked.then((ms) => void result.acked.push(ms))
          if (command.mode === 'acked') await acked
          else pendingAcks.push(acked)
          // Separate HTTP requests yield to the event loop between sends; so does this side.
          await new Promise((resolve) => setImmediate(resolve))
        }
      }
      await Promise.all(Array.from({ length: command.concurrency }, lane))
      result.seconds = (performance.now() - started) / 1000
      await Promise.all(pendingAcks)
      result.ackedSeconds = (performance.now() - started) / 1000
      const used = process.cpuUsage(cpu)
      result.cpuSeconds = (used.user + used.system) / 1e6
      return result
    }
    case 'received': {
      const deadline = Date.now() + command.timeoutMs
      while (received.count < command.count && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10))
      const report = received
      received = { count: 0, latencies: [], lastAt: 0 }
      return report
    }
    case 'memory': {
      const gc = (globalThis as { gc?: () => void }).gc
      for (let i = 0; i < 4; i++) gc?.()
      const usage = process.memoryUsage()
      // Read before the snapshot, which allocates outside the heap while it is written.
      const status = readFileSync('/proc/self/status', 'utf8')
      const rssKb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN)
      const dir = process.env.BENCH_HEAP_SNAPSHOT_DIR
      const snapshot = dir
        ? writeHeapSnapshot(join(dir, `raw-${process.pid}-${Date.now()}.heapsnapshot`))
        : undefined
      const spaces = Object.fromEntries(
        getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
      )
      return {
        ...usage,
        spaces,
        rssAnonKb: rssKb('RssAnon'),
        rssFileKb: rssKb('RssFile'),
        gc: Boolean(gc),
        snapshot,
      }
    }
    case 'save':
      writeFileSync(
        command.path,
        JSON.stringify(
          accounts.map((a) => a.auth.save()),
          BufferJSON.replacer,
        ),
      )
      return { saved: accounts.length }
    case 'restore': {
      const saved = JSON.parse(readFileSync(command.path, 'utf8'), BufferJSON.reviver) as SavedAuth[]
      for (const snapshot of saved) {
        const restored: Account = { auth: createRawAuth(snapshot), qrs: [], opens: 0, wake: new Set() }
        accounts.push(restored)
        connect(restored)
      }
      await Promise.all(accounts.map((a) => waitFor(a, () => (a.opens > 0 ? true : undefined), 'open')))
      return { restored: saved.length }
    }
    case 'serve':
      return { port: await serveReference() }
    case 'exit':
      for (const a of accounts) a.sock?.end(undefined)
      setTimeout(() => process.exit(0), 50)
      return {}
  }
}

quietLibsignal()
process.on('message', (message: { id: number; command: RawCommand }) => {
  handle(message.command).then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: (error as Error).message }),
  )
})
process.send?.({ ready: true })
