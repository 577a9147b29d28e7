import assert from 'node:assert/strict'
import { mkdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { Closers } from './closers'
import { silentLogger } from './logger'
import { startCore, tempDataDir } from './testing/instance-harness'
import { freePort } from './testing/system-server'
import { waitFor } from './testing/webhook-receiver'

/** The handles that keep the process alive (servers, sockets, timers), by kind. */
function liveHandles(): Map<string, number> {
  const counts = new Map<string, number>()
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1)
  return counts
}

/** Whether a TCP port on 127.0.0.1 can be listened on (nothing holds it). */
function portFree(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

test('closers run last first, every one of them, and name those that failed', async () => {
  const closers = new Closers(silentLogger())
  const ran: string[] = []
  closers.push('first', () => ran.push('first'))
  closers.push('broken', () => {
    throw new Error('cannot close')
  })
  closers.push('last', async () => ran.push('last'))
  assert.deepEqual(await closers.closeAll(), ['broken'])
  assert.deepEqual(ran, ['last', 'first'])
  assert.deepEqual(await closers.closeAll(), [], 'each step runs once')
})

test('a start that fails after the stores and the sandbox opened leaves nothing open: port, stores, sandbox, timers', async (t) => {
  const dataDir = tempDataDir()
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  // The embedded store's journal cannot be read (a folder where the file goes): the event log fails to open,
  // after the port, the stores and the sandbox opened.
  mkdirSync(join(dataDir, 'events.journal'))
  const port = await freePort()
  const before = liveHandles()
  await assert.rejects(startCore({ dataDir, port, sandbox: true, store: 'lmdb' }), /EISDIR/)
  assert.equal(await portFree(port), true, 'the API port is free again')
  // A closed server's handle goes in the next turns of the event loop: wait for it, then compare.
  const leftOpen = () => [...liveHandles()].filter(([kind, count]) => count > (before.get(kind) ?? 0))
  await waitFor(() => leftOpen().length === 0, 15_000, 'no handle left open').catch(() => undefined)
  assert.deepEqual(leftOpen(), [], 'no server, socket or timer left open by the failed start')
  // The folder opens again at once: the stores were closed, not left locked.
  rmSync(join(dataDir, 'events.journal'), { recursive: true })
  const core = await startCore({ dataDir, port, sandbox: true, store: 'lmdb' })
  await core.close()
  assert.equal(await portFree(port), true)
})

test('a close step that throws does not skip the others', async (t) => {
  const dataDir = tempDataDir()
  t.after(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const core = await startCore({ dataDir, port, sandbox: true })
  const sandbox = core.sandbox!
  const closeSandbox = sandbox.close.bind(sandbox)
  let sandboxClosed = false
  sandbox.close = async () => {
    await closeSandbox()
    sandboxClosed = true
    throw new Error('the sandbox failed to close')
  }
  core.messages.close = () => {
    throw new Error('the messages part failed to close')
  }
  await core.close()
  assert.equal(sandboxClosed, true)
  assert.equal(await portFree(port), true, 'the port closed before the failing steps')
  assert.throws(() => core.events.emit('any', 'webhook.test', { message: 'after close' }), /stopped/)
  // The stores closed after the failing steps: the folder opens again.
  const again = await startCore({ dataDir, port })
  await again.close()
})
