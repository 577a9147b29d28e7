/** A key's record: its message id from before the send, and the answer once the message left. */
export interface LedgerEntry {
  fingerprint: string
  messageId?: string
  answer?: unknown
  at: number
}

/** Where the idempotency ledger keeps its entries, by instance and key; each write resolves once it is durable. */
export interface LedgerRecords {
  get(instanceId: string, key: string): Promise<LedgerEntry | undefined>
  put(instanceId: string, key: string, entry: LedgerEntry): Promise<void>
  /** Removes the entries recorded before `cutoff` (unix ms). */
  removeBefore(cutoff: number): Promise<void>
}
