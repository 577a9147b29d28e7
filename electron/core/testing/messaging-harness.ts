import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { LinkdeskEvent } from '../contract/events'
import type { Core } from '../index'
import { decodeQr, ok, TOKEN, waitForStatus } from './instance-harness'

export { TOKEN }

/** Creates an instance, scans its QR with the sandbox phone `phone` and waits until it is connected. */
export async function linkedInstance(core: Core, phone: string): Promise<string> {
  const { instance_id: id } = await ok(core.apiBase, 'create_instance')
  const { base64 } = await ok(core.apiBase, 'generate_qrcode', { instance_id: id })
  await ok(core.apiBase, 'sandbox/link', { qr: decodeQr(base64), phone, name: `Account ${phone}` })
  await waitForStatus(core, id, (s) => s.state === 'connected', 'connection')
  return id
}

/** Every event the core emits from now on, with a way to await one. */
export function recordEvents(core: Core) {
  const seen: LinkdeskEvent[] = []
  const waiters = new Set<() => void>()
  core.events.live.subscribe((item) => {
    if (item.kind !== 'event') return
    seen.push(item.stored.envelope)
    for (const wake of waiters) wake()
  })
  return {
    seen,
    /** Resolves with the first event (already seen or coming) that matches. */
    waitFor(
      match: (event: LinkdeskEvent) => boolean,
      what: string,
      // Generous: on two cores shared with other test files, a receipt's round trip has taken over 10 s.
      timeoutMs = 30_000,
    ): Promise<LinkdeskEvent> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = seen.find(match)
          if (!found) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no ${what} event within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
}

/** Polls `read` until `done` holds for its value (the sandbox records inboxes as messages arrive). */
export async function eventually<T>(
  read: () => T,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (done(value)) return value
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(value)})`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export function sha256(data: Buffer | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** A loopback HTTP server serving fixed files: path → content type and bytes. */
export async function startFileServer(
  files: Record<string, { type: string; body: Buffer }>,
): Promise<{ url: (path: string) => string; requests: () => number; close(): Promise<void> }> {
  let requests = 0
  const server: Server = createServer((req, res) => {
    requests++
    const file = files[req.url ?? '']
    if (!file) {
      res.writeHead(404)
      res.end('not found')
      return
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length })
    res.end(file.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** A small valid PNG (1×1) followed by filler bytes, so sizes are realistic. */
export function pngBytes(size = 2048): Buffer {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  )
  return Buffer.concat([png, Buffer.alloc(Math.max(0, size - png.length), 0x42)])
}
