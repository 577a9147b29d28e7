import { randomBytes } from 'node:crypto'
import { proto } from '@whiskeysockets/baileys'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Account } from '../accounts/account'
import { type ChannelFile, channelMediaContent, publish } from '../channels/channel-posts'
import { type Channel, ChannelRefusal } from '../channels/channel-registry'
import { SandboxError } from '../errors'
import type { SandboxNetwork } from '../network'
import { assertPhone } from './phone-number'

/** A post as the network keeps it, read for a test. */
export interface SandboxChannelPost {
  server_id: number
  id: string
  type: string
  /** Unix seconds. */
  t: number
  /** The text or the caption, when the post has one. */
  text: string | null
  /** The media kind (`image`, `video`, …), when the post carries media. */
  media: string | null
  /** The emoji each follower reacted with, by phone number. */
  reactions: Record<string, string>
}

/** A channel as the network keeps it. */
export interface SandboxChannelInfo {
  id: string
  name: string
  description: string
  invite: string
  /** The owner's phone number. */
  owner: string
  /** The followers' phone numbers. */
  followers: string[]
  /** The newest posts, oldest first. */
  posts: SandboxChannelPost[]
}

/** What the sandbox's phones do with channels, and what the network keeps of them. */
export interface SandboxChannelControl {
  list(): SandboxChannelInfo[]
  /** Unknown channel: SandboxError('channel_not_found'). */
  get(channelId: string): SandboxChannelInfo
  /** The phone makes a channel it owns. */
  create(phone: string, input: { name: string; description?: string }): Promise<SandboxChannelInfo>
  /** The phone follows (or unfollows) a channel, by its id or invite code. */
  follow(phone: string, channel: string, follow: boolean): Promise<SandboxChannelInfo>
  /**
   * The phone posts a text, or an image or video (`text` its caption), to a channel it owns; its followers'
   * devices receive it. The file goes to the media host unencrypted, as channels' media do.
   */
  post(phone: string, channelId: string, text: string, file?: ChannelFile): Promise<SandboxChannelPost>
}

function postText(message: proto.IMessage): { text: string | null; media: string | null } {
  const media = (['image', 'video', 'audio', 'document', 'sticker'] as const).find(
    (kind) => message[`${kind}Message`],
  )
  const caption = media ? (message[`${media}Message`] as { caption?: string | null }).caption : undefined
  return {
    text: message.conversation ?? message.extendedTextMessage?.text ?? caption ?? null,
    media: media ?? null,
  }
}

function infoOf(channel: Channel): SandboxChannelInfo {
  return {
    id: channel.jid,
    name: channel.name,
    description: channel.description,
    invite: channel.invite,
    owner: channel.owner,
    followers: [...channel.followers],
    posts: channel.posts(50).map((post) => ({
      server_id: post.serverId,
      id: post.id,
      type: post.type,
      t: post.t,
      ...postText(proto.Message.decode(post.content)),
      reactions: post.reactions,
    })),
  }
}

/** The channels' side of the control API. */
export function createChannelControl(network: SandboxNetwork): SandboxChannelControl {
  const accountOf = (phone: string): Account => {
    const account = network.directory.get(assertPhone(phone))
    if (!account) throw new SandboxError('account_not_found', `No sandbox account has the number ${phone}.`)
    return account
  }
  const channelOf = (key: string): Channel => {
    const channel = network.channels.get(key) ?? network.channels.byInvite(key)
    if (!channel) throw new SandboxError('channel_not_found', `No sandbox channel ${key} exists.`)
    return channel
  }
  return {
    list: () => network.channels.all().map(infoOf),
    get: (channelId) => infoOf(channelOf(channelId)),
    async create(phone, { name, description = '' }) {
      const owner = accountOf(phone)
      let channel: Channel
      try {
        channel = network.channels.create(owner, name, description)
      } catch (error) {
        if (error instanceof ChannelRefusal) throw new SandboxError('invalid_parameter', `${error.message}.`)
        throw error
      }
      network.events.emit('channel', { channel: channel.jid, phone: owner.phone, change: 'create' })
      await network.state.flushed()
      return infoOf(channel)
    },
    async follow(phone, key, follow) {
      const account = accountOf(phone)
      const channel = channelOf(key)
      if (follow) channel.follow(account)
      else channel.unfollow(account)
      network.events.emit('channel', {
        channel: channel.jid,
        phone: account.phone,
        change: follow ? 'follow' : 'unfollow',
      })
      await network.state.flushed()
      return infoOf(channel)
    },
    async post(phone, channelId, text, file) {
      const owner = accountOf(phone)
      const channel = channelOf(channelId)
      if (!channel.isOwner(owner))
        throw new SandboxError('not_channel_owner', `${phone} does not own ${channel.jid}.`)
      if (!text.trim() && !file) throw new SandboxError('missing_parameter', 'text is required.')
      const message = file
        ? channelMediaContent(network.media, file, text.trim() ? text : undefined)
        : { conversation: text }
      if (!message)
        throw new SandboxError('invalid_parameter', "A channel post's file must be an image or a video.")
      const content = Buffer.from(proto.Message.encode(message).finish())
      const id = randomBytes(8).toString('hex').toUpperCase()
      const type = file ? 'media' : 'text'
      const post = publish(network, channel, owner, { id, type, content })
      await network.state.flushed()
      const shown = infoOf(channel).posts.find((kept) => kept.server_id === post.serverId)
      return shown as SandboxChannelPost
    },
  }
}

type Body = Record<string, unknown>

function stringField(request: FastifyRequest, field: string, required: boolean): string | undefined {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Body
  const value = body[field]
  if (value === undefined || value === null || value === '') {
    if (required) throw new SandboxError('missing_parameter', `${field} is required.`)
    return undefined
  }
  if (typeof value !== 'string') throw new SandboxError('invalid_parameter', `${field} must be a string.`)
  return value
}

/**
 * `/channels`: every channel (GET), one (GET `/channels/:channel`, by id or invite code); a phone makes one
 * (POST `/accounts/:phone/channels`), follows or unfollows one (POST `/accounts/:phone/channels/:channel`
 * with `follow` true/false) and posts to its own (POST `/accounts/:phone/channels/:channel/posts`).
 */
export function registerChannelRoutes(app: FastifyInstance, channels: SandboxChannelControl): void {
  const params = (request: FastifyRequest) => request.params as { phone: string; channel: string }
  app.get('/channels', async () => ({ status: 'success', channels: channels.list() }))
  app.get('/channels/:channel', async (request) => ({
    status: 'success',
    channel: channels.get(params(request).channel),
  }))
  app.post('/accounts/:phone/channels', async (request) => ({
    status: 'success',
    channel: await channels.create(params(request).phone, {
      name: stringField(request, 'name', true) ?? '',
      description: stringField(request, 'description', false),
    }),
  }))
  app.post('/accounts/:phone/channels/:channel', async (request) => {
    const follow = (request.body as Body | undefined)?.follow
    if (follow !== undefined && typeof follow !== 'boolean' && follow !== 'true' && follow !== 'false')
      throw new SandboxError('invalid_parameter', 'follow must be true or false.')
    const { phone, channel } = params(request)
    return {
      status: 'success',
      channel: await channels.follow(phone, channel, follow !== false && follow !== 'false'),
    }
  })
  app.post('/accounts/:phone/channels/:channel/posts', async (request) => {
    const { phone, channel } = params(request)
    return {
      status: 'success',
      post: await channels.post(phone, channel, stringField(request, 'text', true) ?? ''),
    }
  })
}
