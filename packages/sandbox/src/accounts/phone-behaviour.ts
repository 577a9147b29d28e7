/** When a simulated phone reads what it receives: at once, after a delay, or never (its linked devices may). */
export type PhoneReads = 'instantly' | 'after' | 'never'

/** When a simulated phone is online: always, never, or only while it reads and replies. */
export type PhoneOnline = 'always' | 'never' | 'while_active'

/** How an account's simulated phone behaves, as a person holding it would. */
export interface PhoneBehaviour {
  reads: PhoneReads
  /** With `reads: 'after'`: how long after its delivered receipt the phone reads a message. */
  readAfterMs: number
  /** Shows "typing…" in the chat before its auto-reply. */
  typesBeforeReply: boolean
  online: PhoneOnline
}

/**
 * What a phone does unless a test says otherwise: it leaves messages unread (so the read receipt a sender
 * sees is the one a linked device sends), does not type and does not go online by itself.
 */
export const DEFAULT_PHONE_BEHAVIOUR: PhoneBehaviour = {
  reads: 'never',
  readAfterMs: 0,
  typesBeforeReply: false,
  online: 'never',
}

export const PHONE_READS: readonly PhoneReads[] = ['instantly', 'after', 'never']
export const PHONE_ONLINE: readonly PhoneOnline[] = ['always', 'never', 'while_active']

/** The longest read delay a test may set. */
export const MAX_READ_AFTER_MS = 600_000
