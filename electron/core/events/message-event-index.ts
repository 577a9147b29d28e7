import type { Database, RootDatabase } from 'lmdb'
import type { WriteBatch } from '../store/write-batch'

type Key = [instanceId: string, messageId: string]

/**
 * Which event announced each network message: the network delivers a message again when its receipt was
 * lost (a crash, a dropped connection), and each message id must stay one event id. Written with the event
 * (journal first, then the same LMDB batch), so it survives every crash the event survives.
 */
export class MessageEventIndex {
  private readonly entries: Database<string, Key>
  /** Entries written but not committed yet, by `instanceId\0messageId`. */
  private readonly pending = new Map<string, string>()

  constructor(root: RootDatabase) {
    this.entries = root.openDB<string, Key>({ name: 'events-by-message', encoding: 'msgpack' })
  }

  /** The event id that announced this message, if any. */
  eventOf(instanceId: string, messageId: string): string | undefined {
    return this.pending.get(`${instanceId}\u0000${messageId}`) ?? this.entries.get([instanceId, messageId])
  }

  /** Records the message's event in the event's batch; reads see it at once. */
  add(_batch: WriteBatch, instanceId: string, messageId: string, eventId: string): void {
    this.pending.set(`${instanceId}\u0000${messageId}`, eventId)
    this.entries.put([instanceId, messageId], eventId)
  }

  /** The batch that recorded the message committed: LMDB answers for it from now on. */
  committed(instanceId: string, messageId: string, eventId: string): void {
    const pendingKey = `${instanceId}\u0000${messageId}`
    if (this.pending.get(pendingKey) === eventId) this.pending.delete(pendingKey)
  }

  /** Records the message's event inside a synchronous transaction (journal recovery at start). */
  addSync(instanceId: string, messageId: string, eventId: string): void {
    this.entries.putSync([instanceId, messageId], eventId)
  }

  /** Forgets messages announced before `beforeId` (the retention sweep); resolves to how many. */
  async sweep(beforeId: string): Promise<number> {
    const doomed: Key[] = []
    for (const { key, value } of this.entries.getRange({})) if (value < beforeId) doomed.push(key)
    for (let i = 0; i < doomed.length; i += 1000) {
      const batch = doomed.slice(i, i + 1000)
      await this.entries.transaction(() => {
        for (const key of batch) this.entries.removeSync(key)
      })
    }
    return doomed.length
  }
}
