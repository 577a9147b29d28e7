import { randomBytes, randomInt } from 'node:crypto'
import type { Account } from '../accounts/account'
import type { AccountDirectory } from '../accounts/account-directory'
import { unixNow } from '../stanzas/binary-node'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'

/** One post in a channel: the owner's message as sent (plaintext protobuf), under the channel's own number. */
export interface ChannelPost {
  /** The channel's sequence number of the post (`server_id`), which reactions and fetches name. */
  serverId: number
  /** The message id the owner's device sent it under. */
  id: string
  /** The stanza type the owner gave it (`text`, `media`, …). */
  type: string
  /** Unix seconds. */
  t: number
  /** The `proto.Message`, encoded, as it travels in `<plaintext>`. */
  content: Buffer
  /** Reactions by follower phone: the emoji. */
  reactions: Record<string, string>
}

/** What the network keeps of a channel. */
interface ChannelRecord {
  jid: string
  name: string
  description: string
  invite: string
  owner: string
  createdAt: number
  followers: string[]
  posts: Array<Omit<ChannelPost, 'content'> & { content: string }>
}

/** Channels, by JID. */
const CHANNELS = defineTable<ChannelRecord>({ name: 'channels' })

/** The newest posts a channel keeps. */
const POSTS_KEPT = 500
/** The first post's server id, as WhatsApp numbers them (from 100). */
const FIRST_SERVER_ID = 100

/** Why the network refuses a channel operation: the GraphQL error code (as `extensions.error_code`) and text. */
export class ChannelRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'ChannelRefusal'
  }
}

/** A channel (newsletter): one owner who posts, followers who receive its posts. */
export class Channel {
  constructor(
    private record: ChannelRecord,
    private readonly save: (record: ChannelRecord) => void,
  ) {}

  get jid(): string {
    return this.record.jid
  }
  get name(): string {
    return this.record.name
  }
  get description(): string {
    return this.record.description
  }
  get invite(): string {
    return this.record.invite
  }
  get owner(): string {
    return this.record.owner
  }
  get createdAt(): number {
    return this.record.createdAt
  }
  get followers(): readonly string[] {
    return this.record.followers
  }

  isOwner(account: Account): boolean {
    return this.record.owner === account.phone
  }

  follows(account: Account): boolean {
    return this.record.followers.includes(account.phone)
  }

  /** The viewer's role as the network names it. */
  roleOf(account: Account | undefined): 'OWNER' | 'SUBSCRIBER' | 'GUEST' {
    if (account && this.isOwner(account)) return 'OWNER'
    return account && this.follows(account) ? 'SUBSCRIBER' : 'GUEST'
  }

  follow(account: Account): void {
    if (this.follows(account) || this.isOwner(account)) return
    this.change({ followers: [...this.record.followers, account.phone] })
  }

  unfollow(account: Account): void {
    if (!this.follows(account)) return
    this.change({ followers: this.record.followers.filter((phone) => phone !== account.phone) })
  }

  /** Keeps a post by the owner and answers it with its new server id. */
  post(id: string, type: string, content: Buffer): ChannelPost {
    const last = this.record.posts.at(-1)
    const post: ChannelPost = {
      serverId: last ? last.serverId + 1 : FIRST_SERVER_ID,
      id,
      type,
      t: unixNow(),
      content,
      reactions: {},
    }
    const posts = [...this.record.posts, { ...post, content: content.toString('base64') }]
    this.change({ posts: posts.slice(-POSTS_KEPT) })
    return post
  }

  /** A follower's reaction to a post (an empty emoji takes it back); false when no such post. */
  react(account: Account, serverId: number, emoji: string): boolean {
    const index = this.record.posts.findIndex((post) => post.serverId === serverId)
    const found = this.record.posts[index]
    if (!found) return false
    const reactions = { ...found.reactions }
    if (emoji) reactions[account.phone] = emoji
    else delete reactions[account.phone]
    const posts = [...this.record.posts]
    posts[index] = { ...found, reactions }
    this.change({ posts })
    return true
  }

  /** The newest `count` posts, oldest first; `before`: only those with a smaller server id. */
  posts(count: number, before?: number): ChannelPost[] {
    const kept = this.record.posts.filter((post) => before === undefined || post.serverId < before)
    return kept.slice(-count).map((post) => ({ ...post, content: Buffer.from(post.content, 'base64') }))
  }

  private change(fields: Partial<ChannelRecord>): void {
    this.record = { ...this.record, ...fields }
    this.save(this.record)
  }
}

/** Every channel on the network, kept in the sandbox's state. */
export class ChannelRegistry {
  private readonly table: StateTable<ChannelRecord>
  private readonly channels = new Map<string, Channel>()

  constructor(
    state: SandboxState,
    private readonly directory: AccountDirectory,
  ) {
    this.table = state.open(CHANNELS)
    for (const [, record] of this.table.entries()) this.add(record)
  }

  get(jid: string | undefined): Channel | undefined {
    return jid === undefined ? undefined : this.channels.get(jid)
  }

  byInvite(code: string): Channel | undefined {
    return [...this.channels.values()].find((channel) => channel.invite === code)
  }

  all(): Channel[] {
    return [...this.channels.values()]
  }

  /** The channels the account owns or follows. */
  of(account: Account): Channel[] {
    return this.all().filter((channel) => channel.isOwner(account) || channel.follows(account))
  }

  /** A new channel owned by the account. */
  create(owner: Account, name: string, description: string): Channel {
    if (!name.trim() || [...name].length > 100)
      throw new ChannelRefusal(400, 'name must be 1 to 100 characters')
    if ([...description].length > 2048) throw new ChannelRefusal(400, 'description is too long')
    const jid = `120363${String(randomInt(1e11, 1e12))}${String(randomInt(1e5, 1e6))}@newsletter`
    return this.add({
      jid,
      name: name.trim(),
      description,
      invite: randomBytes(16).toString('base64url').slice(0, 22),
      owner: owner.phone,
      createdAt: unixNow(),
      followers: [],
      posts: [],
    })
  }

  /** The accounts following a channel, its owner first (every one of their devices gets its posts). */
  audience(channel: Channel): Account[] {
    return [channel.owner, ...channel.followers].flatMap((phone) => {
      const account = this.directory.get(phone)
      return account ? [account] : []
    })
  }

  private add(record: ChannelRecord): Channel {
    const channel = new Channel(record, (changed) => this.table.put(changed.jid, changed))
    this.channels.set(record.jid, channel)
    this.table.put(record.jid, record)
    return channel
  }
}
