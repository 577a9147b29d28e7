import type { BinaryNode } from '../stanzas/binary-node'
import type { StoredList } from '../state/stored-list'

/** Stanzas kept per device; past this many the oldest is dropped, as a server bounds a mailbox. */
export const MAILBOX_LIMIT = 1000

/**
 * What the server still owes one linked device, as the real server keeps it: every message stanza until the
 * device's delivery receipt (a retry receipt does not count; a device that decrypted the message may still
 * crash before it keeps it), and other stanzas while the device is away. At each login everything held is
 * written again, oldest first. It is kept in the sandbox's state, so a restart owes the device the same.
 */
export class DeviceMailbox {
  constructor(private readonly entries: StoredList<BinaryNode>) {}

  get size(): number {
    return this.entries.size
  }

  /**
   * Notes a stanza the device is owed: `written` says whether it just went to a connected socket, where
   * only a message is still kept (until its receipt). A message sent again under the same id replaces the
   * earlier copy in its place.
   */
  hold(stanza: BinaryNode, written: boolean): void {
    const messageId = stanza.tag === 'message' ? stanza.attrs.id : undefined
    if (messageId === undefined && written) return
    if (messageId === undefined) this.entries.push(stanza)
    else this.entries.set(messageId, stanza)
    if (this.entries.size > MAILBOX_LIMIT) this.entries.delete(this.entries.firstKey() ?? '')
  }

  /** The device receipted these message ids (a delivery, sender, inactive, peer or read receipt). */
  confirm(ids: readonly string[]): void {
    for (const id of ids) this.entries.delete(id)
  }

  /**
   * What to write at login, oldest first: messages stay held until receipted, other stanzas are handed
   * over once.
   */
  takeForLogin(): BinaryNode[] {
    const stanzas = [...this.entries.values()]
    for (const key of [...this.entries.keys()]) if (key.startsWith('#')) this.entries.delete(key)
    return stanzas
  }
}
