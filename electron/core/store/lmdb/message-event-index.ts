import type { Database, RootDatabase } from 'lmdb'

type Key = [instanceId: string, messageId: string]

/**
 * Which event announced each network message, in LMDB: the network delivers a message again when its receipt
 * was lost (a crash, a dropped connection), and each message id must stay one event id. Written in the
 * event's own batch, so it survives every crash the event survives.
 */
export class MessageEventIndex {
  private readonly entries: Database<string, Key>

  constructor(root: RootDatabase) {
    this.entries = root.openDB<string, Key>({ name: 'events-by-message', encoding: 'msgpack' })
  }

  /** The event id that announced this message, if any. */
  eventOf(instanceId: string, messageId: string): string | undefined {
    return this.entries.get([instanceId, messageId])
  }

  /** Every network message and its event. */
  *all(): Generator<{ instanceId: string; messageId: string; eventId: string }> {
    for (const { key, value } of this.entries.getRange({}))
      yield { instanceId: key[0], messageId: key[1], eventId: value }
  }

  /** Stages the message's event (inside the store's batch). */
  add(instanceId: string, messageId: string, eventId: string): void {
    this.entries.put([instanceId, messageId], eventId)
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
