import { proto } from '@whiskeysockets/baileys'
import type { Account, Addressing } from '../accounts/account'
import type { AccountDirectory } from '../accounts/account-directory'
import type { SandboxState } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'
import type { OutgoingContent } from './outgoing-content'
import type { SenderKeyAudience } from './status-broadcast'

/** A message a simulated phone sent, kept so it can be encrypted again when a device asks for a retry. */
export interface SentRecord {
  id: string
  sender: Account
  /** The recipient account for 1:1, undefined for a group. */
  recipient: Account | undefined
  /** The group (or the status audience) of a sender-key message. */
  group: SenderKeyAudience | undefined
  addressing: Addressing
  timestamp: number
  content: OutgoingContent
  retries: number
}

/** A SentRecord as kept: accounts by phone number, the group by JID, the message in its wire encoding. */
interface KeptSend {
  sender: string
  recipient: string | null
  group: string | null
  addressing: Addressing
  timestamp: number
  message: Buffer
  stanzaType: OutgoingContent['stanzaType']
  mediatype: string | null
  retries: number
  /** When the recipient's device sent its read receipt (unix seconds); absent until then. */
  readAt?: number
}

const LIMIT = 2000

/** The most recent messages simulated phones sent, by id, oldest first; kept across restarts. */
export class RecentSends {
  private readonly kept: StoredList<KeptSend>

  constructor(
    state: SandboxState,
    private readonly directory: AccountDirectory,
    /** The group, or the sender's status audience, a kept send went to, by JID. */
    private readonly audience: (jid: string | undefined, sender: Account) => SenderKeyAudience | undefined,
  ) {
    this.kept = new StoredList(state, 'recent-sends')
  }

  add(record: SentRecord): void {
    const { content } = record
    this.kept.set(record.id, {
      sender: record.sender.phone,
      recipient: record.recipient?.phone ?? null,
      group: record.group?.jid ?? null,
      addressing: record.addressing,
      timestamp: record.timestamp,
      message: Buffer.from(proto.Message.encode(content.message).finish()),
      stanzaType: content.stanzaType,
      mediatype: content.mediatype ?? null,
      retries: record.retries,
    })
    if (this.kept.size > LIMIT) this.kept.delete(this.kept.firstKey() ?? '')
  }

  get(id: string | undefined): SentRecord | undefined {
    const kept = id === undefined ? undefined : this.kept.get(id)
    const sender = kept && this.directory.get(kept.sender)
    if (!id || !kept || !sender) return undefined
    return {
      id,
      sender,
      recipient: kept.recipient === null ? undefined : this.directory.get(kept.recipient),
      group: this.audience(kept.group ?? undefined, sender),
      addressing: kept.addressing,
      timestamp: kept.timestamp,
      content: {
        message: proto.Message.decode(kept.message),
        stanzaType: kept.stanzaType,
        ...(kept.mediatype === null ? {} : { mediatype: kept.mediatype }),
      },
      retries: kept.retries,
    }
  }

  /** Notes that the recipient read these messages (a device's read receipt); ids not kept are ignored. */
  markRead(ids: readonly string[], at: number): void {
    for (const id of ids) {
      const kept = this.kept.get(id)
      if (kept && kept.readAt === undefined) this.kept.set(id, { ...kept, readAt: at })
    }
  }

  /** The ids of the messages a phone sent that their recipient read, oldest first. */
  readOf(phone: string): string[] {
    const ids: string[] = []
    for (const id of this.kept.keys()) {
      const kept = this.kept.get(id)
      if (kept?.sender === phone && kept.readAt !== undefined) ids.push(id)
    }
    return ids
  }

  /** Counts one more retry of a message. */
  countRetry(id: string): void {
    const kept = this.kept.get(id)
    if (kept) this.kept.set(id, { ...kept, retries: kept.retries + 1 })
  }
}
