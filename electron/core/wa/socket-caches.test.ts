import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { WASocket } from '@whiskeysockets/baileys'
import type { Sandbox } from '@linkdesk/sandbox'
import { startTestSandbox } from '@linkdesk/sandbox/testing'
import { DEFAULT_TIMINGS } from '../config'
import { silentLogger } from '../logger'
import { LmdbAuthStore } from '../store/lmdb/auth'
import { socketNetworkConfig } from './network-endpoint'
import { loadWaAuthState } from './wa-auth-state'
import { openSocket, retryCounterCache, socketConfig } from './wa-session'
import { BUNDLED_WA_VERSION } from './wa-version'

// Each socket of an instance carries Baileys' message retry manager; its bounded caches must not allocate
// their slots up front (an idle account would carry ~70 KB of empty arrays), and must still keep and evict
// the same entries.

/** What the test reads of lru-cache and of the manager (private in Baileys' types). */
interface Cache {
  max: number
  maxSize: number
  size: number
}
interface Manager {
  recentMessagesMap: Cache
  baseKeys: Cache
  messageKeyIndex: Map<string, string>
  addRecentMessage(to: string, id: string, message: { conversation: string }): void
  getRecentMessage(to: string, id: string): { message: { conversation: string } } | undefined
  saveBaseKey(address: string, messageId: string, baseKey: Uint8Array): void
  hasSameBaseKey(address: string, messageId: string, baseKey: Uint8Array): boolean
}

const dir = mkdtempSync(join(tmpdir(), 'linkdesk-socket-caches-'))
let sandbox: Sandbox
let auth: LmdbAuthStore
let socket: WASocket

before(async () => {
  sandbox = await startTestSandbox()
  auth = new LmdbAuthStore(dir)
  const state = loadWaAuthState(auth.forInstance('caches'))
  const network = socketNetworkConfig({ kind: 'sandbox', ...sandbox.endpoint })
  socket = openSocket(
    socketConfig({
      instanceId: 'caches',
      logger: silentLogger(),
      timings: DEFAULT_TIMINGS,
      network,
      auth: state.state,
      retryCounter: retryCounterCache(),
      getMessage: async () => undefined,
      groupMetadata: async () => undefined,
      onDecrypted: () => undefined,
      holdKeyWrites: state.holdKeyWrites,
      version: BUNDLED_WA_VERSION,
      ignoreStatus: () => true,
    }),
  )
  // The socket is live: it reached the sandbox and shows a QR code.
  await new Promise<void>((resolve) =>
    socket.ev.on('connection.update', (update) => {
      if (update.qr) resolve()
    }),
  )
})

after(async () => {
  socket?.end(undefined)
  await auth?.close()
  await sandbox?.close()
  rmSync(dir, { recursive: true, force: true })
})

const manager = (): Manager => socket.messageRetryManager as unknown as Manager

test("a socket's retry manager allocates no cache slots up front, bounded as Baileys bounds them", () => {
  for (const [field, bound] of [
    ['recentMessagesMap', 512],
    ['baseKeys', 1024],
  ] as const) {
    const cache = manager()[field]
    assert.equal(cache.max, 0, `${field}: no slots allocated up front (lru-cache's max)`)
    assert.equal(cache.maxSize, bound, `${field}: still bounded to ${bound} entries`)
    assert.equal(cache.size, 0)
  }
})

test('the recent messages keep the last 512 sends, and an evicted one leaves the id index too', () => {
  const chat = '15550001111@s.whatsapp.net'
  for (let i = 0; i <= 512; i++) manager().addRecentMessage(chat, `ID${i}`, { conversation: `text ${i}` })
  assert.equal(manager().recentMessagesMap.size, 512)
  assert.equal(manager().getRecentMessage(chat, 'ID0'), undefined, 'the oldest was evicted')
  assert.equal(manager().getRecentMessage(chat, 'ID512')?.message.conversation, 'text 512')
  assert.equal(manager().messageKeyIndex.size, 512, "Baileys' dispose callback still runs on eviction")
  assert.equal(manager().messageKeyIndex.has('ID0'), false)
})

test('the base keys keep the last 1,024', () => {
  for (let i = 0; i <= 1024; i++) manager().saveBaseKey(`s${i}`, `m${i}`, Uint8Array.of(i % 256))
  assert.equal(manager().baseKeys.size, 1024)
  assert.equal(manager().hasSameBaseKey('s0', 'm0', Uint8Array.of(0)), false, 'the oldest was evicted')
  assert.equal(manager().hasSameBaseKey('s1024', 'm1024', Uint8Array.of(0)), true)
})
