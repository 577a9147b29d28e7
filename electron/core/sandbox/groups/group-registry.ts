import { randomInt } from 'node:crypto'
import type { Account } from '../accounts/account'

export type GroupRole = 'superadmin' | 'admin' | undefined

export interface GroupMember {
  account: Account
  role: GroupRole
}

/** A group of accounts. Members' devices learn each sender's key once; the group remembers who has it. */
export class Group {
  /** Sender device address → device addresses that already hold that sender's key. */
  private readonly senderKeyHolders = new Map<string, Set<string>>()

  constructor(
    readonly jid: string,
    public subject: string,
    readonly creator: Account,
    readonly members: GroupMember[],
    readonly createdAt: number,
  ) {}

  get id(): string {
    return this.jid.split('@')[0] ?? this.jid
  }

  has(account: Account): boolean {
    return this.members.some((member) => member.account === account)
  }

  holdsSenderKey(sender: string, device: string): boolean {
    return this.senderKeyHolders.get(sender)?.has(device) ?? false
  }

  markSenderKeyHeld(sender: string, device: string): void {
    let holders = this.senderKeyHolders.get(sender)
    if (!holders) {
      holders = new Set()
      this.senderKeyHolders.set(sender, holders)
    }
    holders.add(device)
  }

  forgetSenderKeyHolder(sender: string, device: string): void {
    this.senderKeyHolders.get(sender)?.delete(device)
  }
}

/** Every group on the network, by JID. */
export class GroupRegistry {
  private readonly groups = new Map<string, Group>()

  get(jid: string | undefined): Group | undefined {
    return jid ? this.groups.get(jid) : undefined
  }

  /** Groups the account is a member of. */
  of(account: Account): Group[] {
    return [...this.groups.values()].filter((group) => group.has(account))
  }

  /** Makes a group; the creator becomes its super admin and is always a member. */
  create(subject: string, creator: Account, others: Account[]): Group {
    let jid: string
    do jid = `120363${String(randomInt(100_000_000, 999_999_999))}${String(randomInt(100_000, 999_999))}@g.us`
    while (this.groups.has(jid))
    const members: GroupMember[] = [{ account: creator, role: 'superadmin' }]
    for (const account of others) {
      if (!members.some((member) => member.account === account)) members.push({ account, role: undefined })
    }
    const group = new Group(jid, subject, creator, members, Math.floor(Date.now() / 1000))
    this.groups.set(jid, group)
    return group
  }
}
