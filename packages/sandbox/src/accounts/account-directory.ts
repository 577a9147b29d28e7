import { randomInt } from 'node:crypto'
import { jidDecode } from '@whiskeysockets/baileys'
import type { SandboxState } from '../state/sandbox-state'
import { Account, ACCOUNTS, LID_SERVER, PN_SERVER, type Addressing } from './account'

export interface ResolvedDevice {
  account: Account
  device: number
  addressing: Addressing
}

/** Every account on the network, by phone number and by LID. */
export class AccountDirectory {
  private readonly byPhone = new Map<string, Account>()
  private readonly byLid = new Map<string, Account>()

  /** The accounts kept in the state, with their devices, keys and inboxes. */
  constructor(private readonly state: SandboxState) {
    const records = state
      .open(ACCOUNTS)
      .entries()
      .map(([, record]) => record)
    for (const record of records.sort((a, b) => a.addedAt - b.addedAt)) this.add(new Account(state, record))
  }

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
      existing.update(name, autoReply)
      return existing
    }
    const record = {
      phone,
      lid: this.newLid(),
      name: name ?? `+${phone}`,
      autoReply: autoReply ?? null,
      nextDeviceId: 1,
      addedAt: Date.now(),
    }
    const account = new Account(this.state, record)
    account.save()
    this.add(account)
    return account
  }

  private add(account: Account): void {
    this.byPhone.set(account.phone, account)
    this.byLid.set(account.lid, account)
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
