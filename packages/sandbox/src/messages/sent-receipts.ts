/** One receipt a linked device sent, as the network got it. */
export interface SentReceipt {
  device: number
  /** When the connection that sent it logged in (ms since the epoch): tells one connection of a device from the next. */
  loggedInAt: number
  /** When the network got it (ms since the epoch). */
  at: number
  type: string
  ids: string[]
}

/** Receipts kept per phone (the newest; older ones are dropped). */
const KEPT_PER_PHONE = 2_000

/** The receipts each account's linked devices sent, newest last: live only, for tests and the control API. */
export class SentReceipts {
  private readonly byPhone = new Map<string, SentReceipt[]>()

  record(phone: string, receipt: SentReceipt): void {
    const list = this.byPhone.get(phone) ?? []
    list.push(receipt)
    if (list.length > KEPT_PER_PHONE) list.splice(0, list.length - KEPT_PER_PHONE)
    this.byPhone.set(phone, list)
  }

  of(phone: string): SentReceipt[] {
    return [...(this.byPhone.get(phone) ?? [])]
  }
}
