import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { boundedCache, CACHE_LIMITS } from '../../bounded-cache'
import { commitFailure, type Database, type RootDatabase } from './database'
import { writeBatch } from './write-batch'
import { LmdbChatIndex } from './chat-index'
import type { DeliveryStatus } from '../../contract/message'
import {
  type MessagePosition,
  type MessageStore,
  type MessageStoreOptions,
  joinedMessage,
  messageHolds,
  newestReceived,
  positionOf,
  retentionOf,
  storedAtClock,
  STATUS_RANK,
  type StoredChat,
  type StoredContact,
  type StoredMessage,
} from '../message-store'

/**
 * Sent and received messages per instance, in the app's LMDB, keyed by message id (retries and receipts
 * name the id, not always the same chat id), with their delivery statuses as small records beside them (a
 * receipt rewrites a few bytes, not the message and its content); downloaded media as files beside it.
 * A write is visible to reads as soon as it is queued, and every write resolves once it has committed, with the
 * index's writes queued in the same turn (LMDB commits a turn's writes in one transaction): a write that fails
 * (the disk full) fails the operation that asked for it, and reads no longer see it. Chats, chat pages and
 * contacts are read from an index kept with every write (chat-index.ts), built from the messages on the first
 * open of a folder written before it.
 */
type Key = [string, string]

export class LmdbMessageStore implements MessageStore {
  private readonly db: Database<StoredMessage, Key>
  private readonly statuses: Database<DeliveryStatus, Key>
  /** Messages whose write is not committed yet, by joined key. */
  private readonly pending = new Map<string, StoredMessage>()
  /** Statuses whose write is not committed yet, by joined key. */
  private readonly pendingStatuses = new Map<string, DeliveryStatus>()
  /** A failed write, while writes queued after it (which may have read what it left pending) are in flight. */
  private failure: unknown
  private readonly mediaDir: string
  private readonly retentionMs: number
  private readonly now: () => number
  private readonly stamp: () => number
  /** Ids being written: an incoming message seen twice before its write commits is still one message. */
  private readonly recent = boundedCache<string, true>(CACHE_LIMITS.messageIdsInFlight)
  private readonly index: LmdbChatIndex
  /** Writes queued and not settled yet. */
  private inFlight = 0

  constructor(root: RootDatabase, dataDir: string, options: MessageStoreOptions = {}) {
    this.db = root.openDB<StoredMessage, Key>({ name: 'messages', encoding: 'msgpack' })
    this.statuses = root.openDB<DeliveryStatus, Key>({ name: 'message-statuses', encoding: 'msgpack' })
    this.index = new LmdbChatIndex(
      root,
      (instanceId, id) => this.current(instanceId, id),
      (error) => this.failed(error),
    )
    this.index.buildOnce(root, () =>
      this.db.getRange({}).map(({ key, value }) => ({ instanceId: key[0], stored: value })),
    )
    this.mediaDir = join(dataDir, 'media')
    this.retentionMs = retentionOf(options)
    this.now = options.now ?? Date.now
    this.stamp = storedAtClock(this.now)
  }

  /**
   * Stores an incoming (or phone-sent) message unless its id is known; resolves once committed: true when it
   * is new. A failed write rejects, and the id is free again for the copy the network delivers next.
   */
  async addIfNew(instanceId: string, entry: Omit<StoredMessage, 'storedAt'>): Promise<boolean> {
    const key: Key = [instanceId, entry.message.id]
    const recentKey = key.join('\u0000')
    // Claimed synchronously: a second copy arriving while the write is in flight is already a duplicate.
    if (this.recent.has(recentKey) || this.db.get(key) !== undefined) return false
    this.recent.set(recentKey, true)
    const stored: StoredMessage = { ...entry, storedAt: this.stamp() }
    try {
      const written = this.put(key, stored)
      this.index.change(instanceId, undefined, stored)
      await written
    } catch (error) {
      this.recent.delete(recentKey)
      throw error
    }
    return true
  }

  /**
   * Stores a message this app sent (the same id sent again replaces it); resolves once committed, so a send
   * answered as a success is in the store after any crash.
   */
  async addSent(instanceId: string, entry: Omit<StoredMessage, 'storedAt' | 'direction'>): Promise<void> {
    const key: Key = [instanceId, entry.message.id]
    this.recent.set(key.join('\u0000'), true)
    const was = this.current(instanceId, entry.message.id)
    const stored: StoredMessage = { ...entry, direction: 'out', storedAt: this.stamp() }
    const written = this.put(key, stored)
    this.index.change(instanceId, was, stored)
    await written
  }

  async get(instanceId: string, id: string): Promise<StoredMessage | undefined> {
    return this.current(instanceId, id)
  }

  /** The message as last written, queued or committed. */
  private current(instanceId: string, id: string): StoredMessage | undefined {
    return this.pending.get(`${instanceId}\u0000${id}`) ?? this.db.get([instanceId, id])
  }

  /**
   * The received messages of one chat (a contact or a group, by chat id or the other id the network gave
   * for it), at most `limit` of the newest, oldest first.
   */
  async receivedIn(instanceId: string, chat: string, limit: number): Promise<StoredMessage[]> {
    return newestReceived(this, instanceId, chat, limit)
  }

  async chats(instanceId: string, limit: number, before?: MessagePosition): Promise<StoredChat[]> {
    return this.index.chatsPage(instanceId, limit, before)
  }

  async chat(instanceId: string, chat: string): Promise<StoredChat | undefined> {
    return this.index.chatOf(instanceId, chat)
  }

  async chatPage(
    instanceId: string,
    chat: string,
    limit: number,
    before?: MessagePosition,
  ): Promise<StoredMessage[]> {
    return this.index.page(instanceId, chat, limit, before)
  }

  async contacts(instanceId: string, limit: number, after?: string): Promise<StoredContact[]> {
    return this.index.contactsPage(instanceId, limit, after)
  }

  async joinChat(instanceId: string, lid: string, phone: string): Promise<number> {
    if (!this.index.chatOf(instanceId, lid)) return 0
    const moving: StoredMessage[] = []
    for (let before: MessagePosition | undefined; ;) {
      const page = this.index.page(instanceId, lid, 200, before)
      moving.push(...page.filter((stored) => stored.message.chat === lid))
      const last = page.at(-1)
      if (!last || page.length < 200) break
      before = positionOf(last)
    }
    // Queued in one turn, so the writes share one commit.
    const written = moving.map((stored) => {
      const joined = joinedMessage(stored, lid, phone)
      const done = this.put([instanceId, stored.message.id], joined)
      this.index.change(instanceId, stored, joined)
      return done
    })
    await Promise.all(written)
    return moving.length
  }

  async removeChat(instanceId: string, chat: string, upTo: number): Promise<number> {
    const going: StoredMessage[] = []
    for (let before: MessagePosition | undefined; ;) {
      const page = this.index.page(instanceId, chat, 200, before)
      going.push(...page.filter((stored) => (Number(stored.message.timestamp) || 0) <= upTo))
      const last = page.at(-1)
      if (!last || page.length < 200) break
      before = positionOf(last)
    }
    // Queued in one turn, so the removals and the index's changes share one commit.
    const removals = going.map((stored) => {
      const key: Key = [instanceId, stored.message.id]
      rmSync(this.mediaPath(instanceId, stored.message.id), { force: true })
      this.pending.delete(key.join('\u0000'))
      this.pendingStatuses.delete(key.join('\u0000'))
      this.index.change(instanceId, stored, undefined)
      return Promise.all([this.statuses.remove(key), this.db.remove(key)])
    })
    await Promise.all(removals).catch((error: unknown) => Promise.reject(commitFailure(error)))
    return going.length
  }

  /** Notes that received messages were marked read (they no longer count as unread); resolves once committed. */
  async markRead(instanceId: string, ids: readonly string[]): Promise<void> {
    const written: Array<Promise<boolean>> = []
    for (const id of ids) {
      const stored = this.current(instanceId, id)
      if (stored && stored.direction === 'in' && !stored.read) {
        const read = { ...stored, read: true }
        written.push(this.put([instanceId, id], read))
        this.index.change(instanceId, stored, read)
      }
    }
    await Promise.all(written)
  }

  /** The encoded content of a message, for Baileys' getMessage; undefined when unknown. */
  async content(instanceId: string, id: string): Promise<Uint8Array | undefined> {
    const content = this.current(instanceId, id)?.content
    return content ? Uint8Array.from(content) : undefined
  }

  /**
   * Records a status if it moves the message forward; returns whether it did. Every write of this store goes
   * through `put` on this thread, so reading the newest value (queued or committed) and queueing the next one
   * in the same turn is atomic, with no write transaction held on the main thread. Resolves once committed.
   * `known`: the message as the caller just read it (a receipt's intake), which is not decoded a second time.
   */
  async advanceStatus(
    instanceId: string,
    id: string,
    status: DeliveryStatus,
    known?: StoredMessage,
  ): Promise<boolean> {
    const stored = known ?? this.current(instanceId, id)
    if (!stored) return false
    const current = this.currentStatus(instanceId, id, stored)
    if (current && status !== 'failed' && STATUS_RANK[status] <= STATUS_RANK[current]) return false
    await this.write(this.statuses, this.pendingStatuses, [instanceId, id], status)
    return true
  }

  /** The newest delivery status of a message, written or still being written; undefined when none came yet. */
  async statusOf(instanceId: string, id: string): Promise<DeliveryStatus | undefined> {
    return this.currentStatus(instanceId, id, this.current(instanceId, id))
  }

  async statusesOf(
    instanceId: string,
    messages: readonly StoredMessage[],
  ): Promise<Map<string, DeliveryStatus>> {
    const found = new Map<string, DeliveryStatus>()
    for (const stored of messages) {
      const status = this.currentStatus(instanceId, stored.message.id, stored)
      if (status !== undefined) found.set(stored.message.id, status)
    }
    return found
  }

  async searchChats(instanceId: string, text: string, limit: number): Promise<string[]> {
    const needle = text.toLowerCase()
    const chats = new Set<string>()
    const look = (stored: StoredMessage) => {
      if (messageHolds(stored.message, needle)) chats.add(stored.message.chat)
      return chats.size >= limit
    }
    // Writes not committed yet first (reads see them), then the committed ones they do not replace.
    for (const [joined, stored] of this.pending)
      if (joined.startsWith(`${instanceId}\u0000`) && look(stored)) return [...chats]
    const range = { start: [instanceId], end: [instanceId, '\uffff'] }
    for (const { key, value } of this.db.getRange(range)) {
      if (this.pending.has(key.join('\u0000'))) continue
      if (look(value)) break
    }
    return [...chats]
  }

  private currentStatus(
    instanceId: string,
    id: string,
    stored: StoredMessage | undefined,
  ): DeliveryStatus | undefined {
    const key: Key = [instanceId, id]
    return this.pendingStatuses.get(key.join('\u0000')) ?? this.statuses.get(key) ?? stored?.status
  }

  /** The downloaded media of a message, if it was saved. */
  async readMedia(instanceId: string, id: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.mediaPath(instanceId, id))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  /** Saves downloaded media (written aside and renamed, so a crash never leaves half a file). */
  async saveMedia(instanceId: string, id: string, data: Uint8Array): Promise<void> {
    await mkdir(join(this.mediaDir, instanceId), { recursive: true, mode: 0o700 })
    const path = this.mediaPath(instanceId, id)
    await writeFile(`${path}.tmp`, data, { mode: 0o600 })
    await rename(`${path}.tmp`, path)
  }

  /**
   * Removes messages and media older than the retention; returns how many messages went. The removals and
   * the index's changes are queued in one turn, so they commit together.
   */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.retentionMs
    // As last written: a write still queued (a message marked read) is what the index counted.
    const expired = Array.from(
      this.db.getRange().map(({ key, value }) => ({ key, value: this.current(key[0], key[1]) ?? value })),
    ).filter(({ value }) => value.storedAt < cutoff)
    const removals = expired.map(({ key, value }) => {
      rmSync(this.mediaPath(key[0], key[1]), { force: true })
      this.pending.delete(key.join('\u0000'))
      this.index.change(key[0], value, undefined)
      return Promise.all([this.statuses.remove(key), this.db.remove(key)])
    })
    await Promise.all(removals).catch((error: unknown) => Promise.reject(commitFailure(error)))
    return expired.length
  }

  /** Every stored message with its newest status (for copying the store elsewhere). */
  *export(): Generator<{ instanceId: string; stored: StoredMessage; status?: DeliveryStatus }> {
    for (const { key, value } of this.db.getRange({})) {
      const status = this.currentStatus(key[0], key[1], value)
      yield { instanceId: key[0], stored: value, ...(status !== undefined && { status }) }
    }
  }

  /** Forgets everything of an instance (destroyed). */
  async dropInstance(instanceId: string): Promise<void> {
    for (const pending of [this.pending, this.pendingStatuses])
      for (const key of pending.keys()) if (key.startsWith(`${instanceId}\u0000`)) pending.delete(key)
    const range = { start: [instanceId], end: [instanceId, '\uffff'] }
    await writeBatch(this.db, () => {
      for (const key of this.db.getKeys(range)) this.db.remove(key)
      for (const key of this.statuses.getKeys(range)) this.statuses.remove(key)
      this.index.drop(instanceId)
    })
    rmSync(join(this.mediaDir, instanceId), { recursive: true, force: true })
  }

  private mediaPath(instanceId: string, id: string): string {
    const name = createHash('sha256').update(id).digest('hex').slice(0, 40)
    return join(this.mediaDir, instanceId, name)
  }

  /** Queues a write, visible to reads at once; the promise settles with its commit. */
  private put(key: Key, value: StoredMessage): Promise<boolean> {
    return this.write(this.db, this.pending, key, value)
  }

  /**
   * Queues a write to `db`, visible through `pending` until it commits; a failed one is no longer seen. After a
   * failure, writes are refused until those queued after it have settled: they may have read what it left
   * pending (a chat's count), and what is committed is again the whole truth once they have.
   */
  private write<V>(db: Database<V, Key>, pending: Map<string, V>, key: Key, value: V): Promise<boolean> {
    if (this.failure !== undefined) {
      if (this.inFlight > 0)
        return Promise.reject(new Error('an earlier message write failed', { cause: this.failure }))
      this.failure = undefined
    }
    const joined = key.join('\u0000')
    pending.set(joined, value)
    this.inFlight++
    const written = db.put(key, value)
    const settle = () => {
      this.inFlight--
      if (pending.get(joined) === value) pending.delete(joined)
    }
    written.then(settle, (error: unknown) => {
      settle()
      this.failed(error)
    })
    return written.catch((error: unknown) => Promise.reject(commitFailure(error)))
  }

  private failed(error: unknown): void {
    this.failure = error
  }
}
