import { randomBytes, randomInt } from 'node:crypto'
import type { Account } from '../accounts/account'
import type { AccountDirectory } from '../accounts/account-directory'
import { unixNow } from '../stanzas/binary-node'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'

export type GroupRole = 'superadmin' | 'admin' | undefined

export interface GroupMember {
  account: Account
  role: GroupRole
}

/** A group's description: its id (each change makes a new one), text, who wrote it and when. */
export interface GroupDescription {
  id: string
  text: string
  by: string
  at: number
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
  /** Who set the subject last (phone) and when (absent in earlier state: the creator, at creation). */
  subjectBy?: string
  subjectAt?: number
  description?: GroupDescription | null
  /** Only admins send. */
  announce?: boolean
  /** Only admins edit the group's info. */
  restrict?: boolean
  /** The disappearing-messages timer, seconds (absent or 0: off). */
  ephemeral?: number
  inviteCode?: string | null
  /** Invitations made for adds the invitee's privacy refused: code, phone, expiry (Unix seconds). */
  addRequests?: Array<[string, string, number]>
  /** A community: the parent group its linked groups and announcement group hang from. */
  community?: boolean
  /** The community this group is linked to (its announcement group's too). */
  linkedParent?: string | null
  /** The community's announcement group (the network's default subgroup). */
  announcementGroup?: boolean
}

/** What a group is in a community, as it is made. */
export interface GroupKind {
  community?: boolean
  linkedParent?: string | null
  announcementGroup?: boolean
  announce?: boolean
}

/** Groups, by JID. */
const GROUPS = defineTable<GroupRecord>({ name: 'groups' })

/** An invite code as the network makes them: 22 URL-safe characters. */
function newInviteCode(): string {
  return randomBytes(16).toString('base64url').slice(0, 22)
}

/** A group of accounts. Members' devices learn each sender's key once; the group remembers who has it. */
export class Group {
  /** Sender device address → device addresses that already hold that sender's key. */
  private readonly senderKeyHolders = new Map<string, Set<string>>()
  private readonly memberList: GroupMember[]
  private title: string
  private titleBy: Account
  private titleAt: number
  private about: GroupDescription | null
  private onlyAdminsSend: boolean
  private onlyAdminsEdit: boolean
  private timer: number
  private invite: string | null
  private readonly addRequests: Map<string, { phone: string; expiration: number }>
  private parent: string | null
  /** A community (parent group); fixed when made. */
  readonly isCommunity: boolean
  /** The announcement group of a community; fixed when made. */
  readonly isAnnouncementGroup: boolean

  constructor(
    private readonly table: StateTable<GroupRecord>,
    readonly jid: string,
    readonly creator: Account,
    members: GroupMember[],
    readonly createdAt: number,
    record: Partial<GroupRecord> & { subject: string },
    private readonly directory: AccountDirectory,
  ) {
    this.memberList = members
    this.title = record.subject
    this.titleBy = (record.subjectBy && directory.get(record.subjectBy)) || creator
    this.titleAt = record.subjectAt ?? createdAt
    this.about = record.description ?? null
    this.onlyAdminsSend = record.announce ?? false
    this.onlyAdminsEdit = record.restrict ?? false
    this.timer = record.ephemeral ?? 0
    this.invite = record.inviteCode ?? null
    this.parent = record.linkedParent ?? null
    this.isCommunity = record.community ?? false
    this.isAnnouncementGroup = record.announcementGroup ?? false
    this.addRequests = new Map(
      (record.addRequests ?? []).map(([code, phone, expiration]) => [code, { phone, expiration }]),
    )
    for (const [sender, devices] of record.senderKeyHolders ?? []) {
      this.senderKeyHolders.set(sender, new Set(devices))
    }
  }

  get id(): string {
    return this.jid.split('@')[0] ?? this.jid
  }

  get members(): readonly GroupMember[] {
    return this.memberList
  }

  get subject(): string {
    return this.title
  }

  /** Who set the subject last, and when (Unix seconds). */
  get subjectSet(): { by: Account; at: number } {
    return { by: this.titleBy, at: this.titleAt }
  }

  get description(): GroupDescription | null {
    return this.about
  }

  get announce(): boolean {
    return this.onlyAdminsSend
  }

  get restrict(): boolean {
    return this.onlyAdminsEdit
  }

  /** The disappearing-messages timer, seconds (0: off). */
  get ephemeral(): number {
    return this.timer
  }

  /** The community this group is linked to, or null. */
  get linkedParent(): string | null {
    return this.parent
  }

  /** Links the group to a community (null unlinks it). */
  linkTo(parent: string | null): void {
    this.parent = parent
    this.save()
  }

  rename(subject: string, by: Account = this.creator): void {
    this.title = subject
    this.titleBy = by
    this.titleAt = unixNow()
    this.save()
  }

  /** Sets the description (null removes it); answers the new one. */
  describe(text: string | null, by: Account): GroupDescription | null {
    this.about =
      text === null
        ? null
        : { id: randomBytes(8).toString('hex').toUpperCase(), text, by: by.phone, at: unixNow() }
    this.save()
    return this.about
  }

  setAnnounce(on: boolean): void {
    this.onlyAdminsSend = on
    this.save()
  }

  setRestrict(on: boolean): void {
    this.onlyAdminsEdit = on
    this.save()
  }

  setEphemeral(seconds: number): void {
    this.timer = seconds
    this.save()
  }

  /** The group's invite code, made on first use. */
  get inviteCode(): string {
    if (!this.invite) {
      this.invite = newInviteCode()
      this.save()
    }
    return this.invite
  }

  /** Makes a new invite code: the old one stops working. */
  revokeInvite(): string {
    this.invite = newInviteCode()
    this.save()
    return this.invite
  }

  /** Whether the code is this group's current invite code. */
  invitedBy(code: string): boolean {
    return this.invite !== null && this.invite === code
  }

  /** Keeps the invitation made for an add the invitee's privacy refused. */
  keepAddRequest(code: string, account: Account, expiration: number): void {
    this.addRequests.set(code, { phone: account.phone, expiration })
    this.save()
  }

  /** Whether the code is a live invitation for this account. */
  invitesByRequest(code: string, account: Account): boolean {
    const request = this.addRequests.get(code)
    return request !== undefined && request.phone === account.phone && request.expiration > unixNow()
  }

  dropAddRequest(code: string): void {
    if (this.addRequests.delete(code)) this.save()
  }

  has(account: Account): boolean {
    return this.memberList.some((member) => member.account === account)
  }

  roleOf(account: Account): GroupRole {
    return this.memberList.find((member) => member.account === account)?.role
  }

  isAdmin(account: Account): boolean {
    return this.roleOf(account) !== undefined
  }

  add(account: Account): void {
    if (this.has(account)) return
    this.memberList.push({ account, role: undefined })
    this.save()
  }

  remove(account: Account): void {
    const index = this.memberList.findIndex((member) => member.account === account)
    if (index < 0) return
    this.memberList.splice(index, 1)
    for (const holders of this.senderKeyHolders.values()) {
      for (const device of [...holders]) if (device.startsWith(`${account.lid}-`)) holders.delete(device)
    }
    this.save()
  }

  /** Makes a member an admin, or a plain member again (the super admin stays one). */
  setAdmin(account: Account, admin: boolean): void {
    const member = this.memberList.find((entry) => entry.account === account)
    if (!member || member.role === 'superadmin') return
    member.role = admin ? 'admin' : undefined
    this.save()
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
      members: this.memberList.map((member) => ({ phone: member.account.phone, role: member.role ?? null })),
      createdAt: this.createdAt,
      senderKeyHolders: [...this.senderKeyHolders].map(([sender, devices]) => [sender, [...devices]]),
      subjectBy: this.titleBy.phone,
      subjectAt: this.titleAt,
      description: this.about,
      announce: this.onlyAdminsSend,
      restrict: this.onlyAdminsEdit,
      ephemeral: this.timer,
      inviteCode: this.invite,
      addRequests: [...this.addRequests].map(([code, { phone, expiration }]) => [code, phone, expiration]),
      community: this.isCommunity,
      linkedParent: this.parent,
      announcementGroup: this.isAnnouncementGroup,
    })
  }
}

/** Every group on the network, by JID. */
export class GroupRegistry {
  private readonly groups = new Map<string, Group>()
  private readonly table: StateTable<GroupRecord>

  /** The groups kept in the state; members are looked up in the restored directory. */
  constructor(
    state: SandboxState,
    private readonly directory: AccountDirectory,
  ) {
    this.table = state.open(GROUPS)
    for (const [jid, record] of this.table.entries()) {
      const creator = directory.get(record.creator)
      if (!creator) continue
      const members = record.members.flatMap(({ phone, role }) => {
        const account = directory.get(phone)
        return account ? [{ account, role: role ?? undefined }] : []
      })
      this.groups.set(jid, new Group(this.table, jid, creator, members, record.createdAt, record, directory))
    }
  }

  get(jid: string | undefined): Group | undefined {
    return jid ? this.groups.get(jid) : undefined
  }

  /** The group whose current invite code this is. */
  byInvite(code: string): Group | undefined {
    return [...this.groups.values()].find((group) => group.invitedBy(code))
  }

  /** The group that sent this account an invitation in place of a refused add. */
  byAddRequest(code: string, account: Account): Group | undefined {
    return [...this.groups.values()].find((group) => group.invitesByRequest(code, account))
  }

  /** Groups the account is a member of. */
  of(account: Account): Group[] {
    return [...this.groups.values()].filter((group) => group.has(account))
  }

  /** The groups linked to a community, its announcement group first. */
  linkedTo(community: Group): Group[] {
    return [...this.groups.values()]
      .filter((group) => group.linkedParent === community.jid)
      .sort((a, b) => Number(b.isAnnouncementGroup) - Number(a.isAnnouncementGroup))
  }

  /** Makes a group; the creator becomes its super admin and is always a member. */
  create(subject: string, creator: Account, others: Account[], kind: GroupKind = {}): Group {
    let jid: string
    do jid = `120363${String(randomInt(100_000_000, 999_999_999))}${String(randomInt(100_000, 999_999))}@g.us`
    while (this.groups.has(jid))
    const members: GroupMember[] = [{ account: creator, role: 'superadmin' }]
    for (const account of others) {
      if (!members.some((member) => member.account === account)) members.push({ account, role: undefined })
    }
    const record = {
      subject,
      community: kind.community,
      linkedParent: kind.linkedParent,
      announcementGroup: kind.announcementGroup,
      announce: kind.announce,
    }
    const group = new Group(this.table, jid, creator, members, unixNow(), record, this.directory)
    this.groups.set(jid, group)
    group.save()
    return group
  }
}
