import { randomInt } from 'node:crypto'
import type { Account } from '../accounts/account'
import type { AccountDirectory } from '../accounts/account-directory'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'

export type GroupRole = 'superadmin' | 'admin' | undefined

export interface GroupMember {
  account: Account
  role: GroupRole
}

/** What the network keeps of a group: members by phone number. */
interface GroupRecord {
  jid: string
  subject: string
  creator: string
  members: Array<{ phone: string; role: GroupRole | null }>
  createdAt: number
  /** Sender device address, and the device addresses that hold its key. */
  senderKeyHolders: Array<[string, string[]]>
}

/** Groups, by JID. */
const GROUPS = defineTable<GroupRecord>({ name: 'groups' })

/** A group of accounts. Members' devices learn each sender's key once; the group remembers who has it. */
export class Group {
  /** Sender device address → device addresses that already hold that sender's key. */
  private readonly senderKeyHolders = new Map<string, Set<string>>()

  constructor(
    private readonly table: StateTable<GroupRecord>,
    readonly jid: string,
    private title: string,
    readonly creator: Account,
    readonly members: readonly GroupMember[],
    readonly createdAt: number,
    holders: GroupRecord['senderKeyHolders'] = [],
  ) {
    for (const [sender, devices] of holders) this.senderKeyHolders.set(sender, new Set(devices))
  }

  get id(): string {
    return this.jid.split('@')[0] ?? this.jid
  }

  get subject(): string {
    return this.title
  }

  rename(subject: string): void {
    this.title = subject
    this.save()
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
    if (holders.has(device)) return
    holders.add(device)
    this.save()
  }

  forgetSenderKeyHolder(sender: string, device: string): void {
    if (this.senderKeyHolders.get(sender)?.delete(device)) this.save()
  }

  /** Writes the group's record; every change to it goes through here. */
  save(): void {
    this.table.put(this.jid, {
      jid: this.jid,
      subject: this.title,
      creator: this.creator.phone,
      members: this.members.map((member) => ({ phone: member.account.phone, role: member.role ?? null })),
      createdAt: this.createdAt,
      senderKeyHolders: [...this.senderKeyHolders].map(([sender, devices]) => [sender, [...devices]]),
    })
  }
}

/** Every group on the network, by JID. */
export class GroupRegistry {
  private readonly groups = new Map<string, Group>()
  private readonly table: StateTable<GroupRecord>

  /** The groups kept in the state; members are looked up in the restored directory. */
  constructor(state: SandboxState, directory: AccountDirectory) {
    this.table = state.open(GROUPS)
    for (const [jid, record] of this.table.entries()) {
      const creator = directory.get(record.creator)
      if (!creator) continue
      const members = record.members.flatMap(({ phone, role }) => {
        const account = directory.get(phone)
        return account ? [{ account, role: role ?? undefined }] : []
      })
      const group = new Group(
        this.table,
        jid,
        record.subject,
        creator,
        members,
        record.createdAt,
        record.senderKeyHolders,
      )
      this.groups.set(jid, group)
    }
  }

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
    const group = new Group(this.table, jid, subject, creator, members, Math.floor(Date.now() / 1000))
    this.groups.set(jid, group)
    group.save()
    return group
  }
}
