import type { Account, Addressing } from '../accounts/account'
import type { Group } from '../groups/group-registry'
import type { OutgoingContent } from './outgoing-content'

/** A message a simulated phone sent, kept so it can be encrypted again when a device asks for a retry. */
export interface SentRecord {
  id: string
  sender: Account
  /** The recipient account for 1:1, undefined for a group. */
  recipient: Account | undefined
  group: Group | undefined
  addressing: Addressing
  timestamp: number
  content: OutgoingContent
  retries: number
}

const LIMIT = 2000

/** The most recent messages simulated phones sent, by id. */
export class RecentSends {
  private readonly records = new Map<string, SentRecord>()

  add(record: SentRecord): void {
    this.records.set(record.id, record)
    if (this.records.size > LIMIT) {
      const oldest = this.records.keys().next()
      if (!oldest.done) this.records.delete(oldest.value)
    }
  }

  get(id: string | undefined): SentRecord | undefined {
    return id ? this.records.get(id) : undefined
  }
}
