import { randomBytes } from 'node:crypto'
import { proto } from '@whiskeysockets/baileys'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Account } from '../accounts/account'
import { type ChannelFile, channelMediaContent, publish } from '../channels/channel-posts'
import { type Channel, ChannelRefusal } from '../channels/channel-registry'
import { SandboxError } from '../errors'
import type { SandboxNetwork } from '../network'
import { assertPhone } from './phone-number'
import { getRoute, postRoute } from './control-route'
import * as schemas from './control-schemas'
import { CHANNEL_PARAM, PHONE_PARAM } from './control-schemas'

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

/**
 * `/channels`: every channel (GET), one (GET `/channels/:channel`, by id or invite code); a phone makes one
 * (POST `/accounts/:phone/channels`), follows or unfollows one (POST `/accounts/:phone/channels/:channel`
 * with `follow` true/false) and posts to its own (POST `/accounts/:phone/channels/:channel/posts`).
 */
export function registerChannelRoutes(app: FastifyInstance, channels: SandboxChannelControl): void {
  const params = (request: FastifyRequest) => request.params as { phone: string; channel: string }
  const named = { ...PHONE_PARAM, ...CHANNEL_PARAM }
  getRoute(app, '/channels', { summary: 'Every channel.', answer: schemas.ChannelsAnswer }, () => ({
    status: 'success',
    channels: channels.list(),
  }))
  getRoute(
    app,
    '/channels/:channel',
    { summary: 'A channel, by its id or invite code.', answer: schemas.ChannelAnswer },
    (request) => ({ status: 'success', channel: channels.get(params(request).channel) }),
    named,
  )
  postRoute(
    app,
    '/accounts/:phone/channels',
    {
      summary: 'The phone makes a channel it owns.',
      body: schemas.ChannelBody,
      answer: schemas.ChannelAnswer,
    },
    async (body, request) => ({
      status: 'success',
      channel: await channels.create(params(request).phone, body),
    }),
    named,
  )
  postRoute(
    app,
    '/accounts/:phone/channels/:channel',
    {
      summary: 'The phone follows or unfollows a channel.',
      body: schemas.FollowBody,
      answer: schemas.ChannelAnswer,
    },
    async (body, request) => {
      const { phone, channel } = params(request)
      const follow = body.follow !== false && body.follow !== 'false'
      return { status: 'success', channel: await channels.follow(phone, channel, follow) }
    },
    named,
  )
  postRoute(
    app,
    '/accounts/:phone/channels/:channel/posts',
    {
      summary: 'The phone posts a text to a channel it owns.',
      body: schemas.PostBody,
      answer: schemas.PostAnswer,
    },
    async (body, request) => {
      const { phone, channel } = params(request)
      return { status: 'success', post: await channels.post(phone, channel, body.text) }
    },
    named,
  )
}
