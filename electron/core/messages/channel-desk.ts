import type { Limits } from '../config'
import { CHANNEL_LINK_BASE, type ChannelPostView, type ChannelView } from '../contract/channel'
import { createHash } from 'node:crypto'
import type { EventSink } from '../contract/events'
import type { PictureInput } from '../contract/media'
import { NO_MEDIA_FACTS } from '../contract/message'
import type { WaChannel, WaChannelPost, WaChannelPostContent, WaConnection } from '../contract/network'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import { decodeBase64Media } from './base64-media'
import { fetchMedia, uploadedMedia } from './media-fetcher'

/** A channel id as the network writes it. */
const CHANNEL_ID = /^\d{5,30}@newsletter$/
/** An invite code: the end of a channel link. */
const INVITE_CODE = /^[A-Za-z0-9_-]{10,40}$/
const NAME_CHARS = 100
const DESCRIPTION_CHARS = 2048
/** WhatsApp's limit on a post's text or caption. */
export const POST_CHARS = 4096
/** The most posts one read returns. */
export const POSTS_PER_READ = 100

export interface ChannelDeskDeps {
  limits: Limits
  logger: Logger
  events: EventSink
  connection(instanceId: string): Promise<WaConnection>
  /** Where the API serves a post's file; the caller adds its own access token. */
  downloadUrl(instanceId: string, channel: string, postId: string): string
}

/** A post's file as the API serves it. */
export interface ChannelFileDownload {
  data: Buffer
  mimetype: string
  fileName: string | null
}

/** Where a channel post's file is served, under the API root; the caller adds its own access token. */
export function channelMediaPath(instanceId: string, channel: string, postId: string): string {
  return `/channel_media/${[instanceId, channel, postId].map(encodeURIComponent).join('/')}`
}

/** What a post to one's own channel is given: a text, a file (image or video) with an optional caption. */
export interface ChannelPostInput {
  text?: string
  media?: PictureInput
}

function channelView(channel: WaChannel): ChannelView {
  return {
    id: channel.id,
    name: channel.name,
    description: channel.description,
    invite: channel.invite,
    link: channel.invite ? `${CHANNEL_LINK_BASE}${channel.invite}` : null,
    followers: channel.followers,
    role: channel.role,
    created_at: channel.createdAt,
  }
}

/** A post as answers and events show it; its file, if any, is downloaded at `downloadUrl`. */
function postView(post: WaChannelPost, downloadUrl: string | null): ChannelPostView {
  const { type, text, caption, media } = post.content
  return {
    channel_id: post.channel,
    post_id: post.serverId,
    message_id: post.id,
    timestamp: String(post.timestamp),
    type,
    text: text ?? null,
    caption: caption ?? null,
    media: media ? { ...NO_MEDIA_FACTS, ...media, download_url: downloadUrl } : null,
    reactions: post.reactions,
  }
}

/** A channel id, checked; invalid_parameter otherwise. */
export function parseChannelId(value: string, parameter = 'channel_id'): string {
  const id = value.trim()
  if (!CHANNEL_ID.test(id)) {
    throw new AppError('invalid_parameter', `${parameter} must be a channel id, \`<digits>@newsletter\`.`, {
      details: { parameter },
    })
  }
  return id
}

/** A channel named by its id, an invite code or its link. */
function channelKey(value: string): { id: string } | { invite: string } {
  const given = value.trim()
  if (CHANNEL_ID.test(given)) return { id: given }
  const code = given.startsWith(CHANNEL_LINK_BASE) ? given.slice(CHANNEL_LINK_BASE.length) : given
  if (INVITE_CODE.test(code)) return { invite: code }
  throw new AppError(
    'invalid_parameter',
    `channel must be a channel id (\`<digits>@newsletter\`), an invite code or its link (\`${CHANNEL_LINK_BASE}<code>\`).`,
    { details: { parameter: 'channel' } },
  )
}

function parsePostId(value: string): string {
  if (!/^\d{1,20}$/.test(value)) {
    throw new AppError('invalid_parameter', 'post_id must be a post id (digits), as posts give it.', {
      details: { parameter: 'post_id' },
    })
  }
  return value
}

function isOwnChannel(channel: WaChannel): boolean {
  return channel.role === 'owner' || channel.role === 'admin'
}

/**
 * The account's channels (WhatsApp newsletters): the ones it follows or owns, following and leaving, reading
 * posts and reacting to them, making a channel and posting to it; posts arriving become `channel.post` events.
 */
export class ChannelManagement {
  private readonly log: Logger

  constructor(private readonly deps: ChannelDeskDeps) {
    this.log = deps.logger.child({ module: 'channels' })
  }

  async list(instanceId: string): Promise<ChannelView[]> {
    const connection = await this.deps.connection(instanceId)
    return (await connection.channels.list()).map(channelView)
  }

  /** One channel, by id, invite code or link: what it is and this account's part in it. */
  async get(instanceId: string, channel: string): Promise<ChannelView> {
    const key = channelKey(channel)
    const connection = await this.deps.connection(instanceId)
    return channelView(await connection.channels.get(key))
  }

  async create(instanceId: string, name: string, description: string | undefined): Promise<ChannelView> {
    const trimmed = name.trim()
    if (!trimmed || [...trimmed].length > NAME_CHARS) {
      throw new AppError('invalid_parameter', `name must be 1 to ${NAME_CHARS} characters.`, {
        details: { parameter: 'name' },
      })
    }
    if (description !== undefined && [...description].length > DESCRIPTION_CHARS) {
      throw new AppError(
        'invalid_parameter',
        `description must be at most ${DESCRIPTION_CHARS} characters.`,
        {
          details: { parameter: 'description' },
        },
      )
    }
    const connection = await this.deps.connection(instanceId)
    return channelView(await connection.channels.create(trimmed, description ?? null))
  }

  /** Follows (or leaves) a channel named by id, invite code or link; answers it as it is now. */
  async follow(instanceId: string, channel: string, follow: boolean): Promise<ChannelView> {
    const key = channelKey(channel)
    const connection = await this.deps.connection(instanceId)
    const found = await connection.channels.get(key)
    if (follow) await connection.channels.follow(found.id)
    else await connection.channels.unfollow(found.id)
    return channelView(await connection.channels.get({ id: found.id }))
  }

  /** The channel's newest posts, oldest first; `before`: older than that post id. */
  async posts(
    instanceId: string,
    channel: string,
    count: number,
    before?: string,
  ): Promise<ChannelPostView[]> {
    const id = parseChannelId(channel)
    if (before !== undefined && !/^\d{1,20}$/.test(before)) {
      throw new AppError('invalid_parameter', 'before must be a post_id (digits).', {
        details: { parameter: 'before' },
      })
    }
    const connection = await this.deps.connection(instanceId)
    return (await connection.channels.posts(id, count, before)).map((post) => this.view(instanceId, post))
  }

  /**
   * A post's file, fetched from the network now and checked against the SHA-256 the post states (a file that
   * does not match is upstream_failed). An unknown post is post_not_found, a text post post_without_media.
   */
  async file(instanceId: string, channel: string, postId: string): Promise<ChannelFileDownload> {
    const id = parseChannelId(channel)
    const serverId = parsePostId(postId)
    const connection = await this.deps.connection(instanceId)
    const file = await connection.channels.file(id, serverId, this.deps.limits.mediaBytes)
    if (!file) throw new AppError('post_without_media', `Post ${serverId} of ${id} carries no file.`)
    if (file.sha256 && !createHash('sha256').update(file.data).digest().equals(file.sha256)) {
      throw new AppError(
        'upstream_failed',
        `The file the network served for post ${serverId} does not match the SHA-256 the post states.`,
      )
    }
    return {
      data: file.data,
      mimetype: file.mimetype ?? 'application/octet-stream',
      fileName: file.fileName,
    }
  }

  /** Reacts to a post by its post_id; an empty emoji takes the reaction back. */
  async react(instanceId: string, channel: string, postId: string, emoji: string): Promise<void> {
    const id = parseChannelId(channel)
    parsePostId(postId)
    if ([...emoji].length > 10) {
      throw new AppError('invalid_parameter', 'emoji must be one emoji (or empty to take it back).', {
        details: { parameter: 'emoji' },
      })
    }
    const connection = await this.deps.connection(instanceId)
    await connection.channels.react(id, postId, emoji)
  }

  /**
   * Posts to a channel this account owns: a text, or an image or video with an optional caption. Nothing is
   * sent to a channel the network does not know (channel_not_found) or that another account owns
   * (not_channel_owner), nor an empty post (missing_parameter).
   */
  async post(
    instanceId: string,
    channel: string,
    input: ChannelPostInput,
  ): Promise<{ message_id: string; post_id: string | null }> {
    const id = parseChannelId(channel)
    const text = input.text?.trim() ? input.text : undefined
    const hasMedia =
      input.media !== undefined && Object.values(input.media).some((part) => part !== undefined)
    if (!text && !hasMedia) {
      throw new AppError(
        'missing_parameter',
        'Give text, or a file (media_url, media_base64 or a file part).',
        {
          details: { parameters: ['text', 'media_url'] },
        },
      )
    }
    if (text !== undefined && [...text].length > POST_CHARS) {
      throw new AppError('invalid_parameter', `text must be at most ${POST_CHARS} characters.`, {
        details: { parameter: 'text' },
      })
    }
    const connection = await this.deps.connection(instanceId)
    const found = await connection.channels.get({ id })
    if (!isOwnChannel(found)) {
      throw new AppError('not_channel_owner', `${id} is not a channel this account owns.`, {
        details: { parameter: 'channel_id' },
      })
    }
    const content: WaChannelPostContent = hasMedia
      ? await this.mediaContent(input.media as PictureInput, text ?? null)
      : { kind: 'text', text: text as string }
    const sent = await connection.channels.post(id, content)
    return { message_id: sent.id, post_id: sent.serverId }
  }

  /** A post that arrived: its event, once per post, durable before the network hears it was taken. */
  async onPost(instanceId: string, post: WaChannelPost): Promise<void> {
    await this.deps.events.emitForMessage(instanceId, post.id, 'channel.post', this.view(instanceId, post))
    this.log.debug({ instanceId, channel: post.channel, postId: post.serverId }, 'channel post')
  }

  private view(instanceId: string, post: WaChannelPost): ChannelPostView {
    const downloadable = post.content.media && post.serverId !== null
    return postView(
      post,
      downloadable ? this.deps.downloadUrl(instanceId, post.channel, post.serverId as string) : null,
    )
  }

  private async mediaContent(input: PictureInput, caption: string | null): Promise<WaChannelPostContent> {
    const { mediaBytes: maxBytes, mediaFetchMs: timeoutMs } = this.deps.limits
    const media = input.mediaBase64
      ? uploadedMedia(decodeBase64Media(input.mediaBase64), { maxBytes, source: 'media_base64' })
      : input.upload
        ? uploadedMedia(input.upload, { maxBytes })
        : await fetchMedia(input.mediaUrl as string, { maxBytes, timeoutMs, log: this.log })
    if (media.kind !== 'image' && media.kind !== 'video') {
      throw new AppError(
        'media_unavailable',
        `A channel post's file must be an image or a video (it is ${media.mimetype}).`,
        {
          details: { parameter: 'media_url' },
        },
      )
    }
    return { kind: 'media', media: media.kind, data: media.data, mimetype: media.mimetype, caption }
  }
}
