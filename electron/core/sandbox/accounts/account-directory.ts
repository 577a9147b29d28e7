import { randomInt } from 'node:crypto'
import { jidDecode } from '@whiskeysockets/baileys'
import { Account, LID_SERVER, PN_SERVER, type Addressing } from './account'

export interface ResolvedDevice {
  account: Account
  device: number
  addressing: Addressing
}

/** Every account on the network, by phone number and by LID. */
export class AccountDirectory {
  private readonly byPhone = new Map<string, Account>()
  private readonly byLid = new Map<string, Account>()

  get(phone: string): Account | undefined {
    return this.byPhone.get(phone)
  }

  all(): Account[] {
    return [...this.byPhone.values()]
  }

  /** Registers a phone number, or returns the existing account with its name and auto-reply updated. */
  ensure(phone: string, name?: string, autoReply?: 'echo'): Account {
    const existing = this.byPhone.get(phone)
    if (existing) {
      if (name) existing.name = name
      if (autoReply) existing.autoReply = autoReply
      return existing
    }
    const account = new Account(phone, this.newLid(), name ?? `+${phone}`, autoReply)
    this.byPhone.set(phone, account)
    this.byLid.set(account.lid, account)
    return account
  }

  /** The account and device a user JID (phone-number or LID form, with or without device) points at. */
  resolve(jid: string | undefined): ResolvedDevice | undefined {
    const decoded = jidDecode(jid)
    if (!decoded) return undefined
    const device = decoded.device ?? 0
    if (decoded.server === PN_SERVER) {
      const account = this.byPhone.get(decoded.user)
      return account && { account, device, addressing: 'pn' }
    }
    if (decoded.server === LID_SERVER) {
      const account = this.byLid.get(decoded.user)
      return account && { account, device, addressing: 'lid' }
    }
    return undefined
  }

  private newLid(): string {
    // LIDs are opaque 15-digit account ids, unrelated to the phone number.
    for (;;) {
      const lid = String(randomInt(100_000_000_000_000, 281_474_976_710_655))
      if (!this.byLid.has(lid)) return lid
    }
  }
}
