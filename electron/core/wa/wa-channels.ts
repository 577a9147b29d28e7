import {
  type BinaryNode,
  generateMessageIDV2,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  prepareWAMessageMedia,
  proto,
  S_WHATSAPP_NET,
  type WASocket,
} from '@whiskeysockets/baileys'
import { AppError } from '../errors'
import type { WaChannel, WaChannelPost, WaChannelPostContent, WaChannels } from '../contract/network'
import type { SocketNetworkConfig } from './network-endpoint'
import { mapChannelPostContent } from './message-mapping'

/**
 * The `w:mex` queries channels use: Baileys 7's query ids (its `QueryIds`) and WhatsApp Web's for the followed
 * list, which Baileys lacks; each answer is `{"data":{<path>:…}}` or `{"errors":[…]}`.
 */
const QUERIES = {
  create: { id: '8823471724422422', path: 'xwa2_newsletter_create' },
  metadata: { id: '6563316087068696', path: 'xwa2_newsletter' },
  follow: { id: '24404358912487870', path: 'xwa2_newsletter_join_v2' },
  unfollow: { id: '9767147403369991', path: 'xwa2_newsletter_leave_v2' },
  subscribed: { id: '6388546374527196', path: 'xwa2_newsletter_subscribed' },
} as const

/** The network's refusal of a channel query: its GraphQL error code (404: no such channel). */
class ChannelQueryError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'ChannelQueryError'
  }
}

function channelError(error: unknown, what: string, channel?: string): AppError {
  const code =
    error instanceof ChannelQueryError ? error.code : (error as { data?: unknown } | undefined)?.data
  if (code === 404 || code === '404') {
    return new AppError('channel_not_found', `The network knows no channel ${channel ?? ''}`.trim() + '.', {
      cause: error,
    })
  }
  if (code === 403 || code === '403')
    return new AppError('not_channel_owner', `Only the channel's owner may ${what}.`, { cause: error })
  const status = (error as { output?: { statusCode?: number } } | undefined)?.output?.statusCode
  if (status === 428)
    return new AppError('not_connected', `The connection closed during the ${what}.`, { cause: error })
  if (status === 408)
    return new AppError('upstream_timeout', `The network did not answer the ${what} in time.`, {
      cause: error,
    })
  return new AppError('upstream_failed', `The network refused the ${what}.`, { cause: error })
}

async function mex(
  socket: WASocket,
  query: { id: string; path: string },
  variables: object,
): Promise<unknown> {
  const result = await socket.query({
    tag: 'iq',
    attrs: { id: socket.generateMessageTag(), type: 'get', to: S_WHATSAPP_NET, xmlns: 'w:mex' },
    content: [
      {
        tag: 'query',
        attrs: { query_id: query.id },
        content: Buffer.from(JSON.stringify({ variables }), 'utf8'),
      },
    ],
  })
  const content = getBinaryNodeChild(result, 'result')?.content
  const body = JSON.parse(content ? Buffer.from(content as Uint8Array).toString('utf8') : '{}') as {
    data?: Record<string, unknown>
    errors?: Array<{ message?: string; extensions?: { error_code?: number } }>
  }
  const [first] = body.errors ?? []
  if (first) throw new ChannelQueryError(first.extensions?.error_code ?? 400, first.message ?? 'refused')
  if (body.data?.[query.path] === undefined) throw new ChannelQueryError(400, 'unexpected answer')
  return body.data[query.path]
}

type Json = Record<string, unknown>

function textOf(value: unknown): string {
  return typeof value === 'object' && value !== null && typeof (value as Json).text === 'string'
    ? ((value as Json).text as string)
    : ''
}

const ROLES: Record<string, WaChannel['role']> = {
  OWNER: 'owner',
  ADMIN: 'admin',
  SUBSCRIBER: 'follower',
}

/** A channel's metadata as the network's answers hold it. */
function mapChannel(raw: unknown): WaChannel {
  const channel = (raw ?? {}) as Json
  const thread = (channel.thread_metadata ?? {}) as Json
  const viewer = (channel.viewer_metadata ?? {}) as Json
  const created = Number(thread.creation_time)
  return {
    id: String(channel.id ?? ''),
    name: textOf(thread.name),
    description: textOf(thread.description),
    invite: typeof thread.invite === 'string' ? thread.invite : null,
    followers: Number(thread.subscribers_count) || 0,
    role: ROLES[String(viewer.role)] ?? 'guest',
    createdAt: Number.isFinite(created) && created > 0 ? created : null,
  }
}

/** A `<message>` of a channel's posts as the network keeps them. */
function mapPost(channel: string, message: BinaryNode): WaChannelPost {
  const plaintext = getBinaryNodeChild(message, 'plaintext')?.content
  const content = plaintext instanceof Uint8Array ? proto.Message.decode(plaintext) : undefined
  return {
    channel,
    serverId: message.attrs.server_id ?? null,
    id: message.attrs.id ?? '',
    timestamp: Number(message.attrs.t) || 0,
    content: mapChannelPostContent(content),
    reactions: getBinaryNodeChildren(getBinaryNodeChild(message, 'reactions'), 'reaction').map(
      (reaction) => ({ emoji: reaction.attrs.code ?? '', count: Number(reaction.attrs.count) || 0 }),
    ),
  }
}

/**
 * Sends a message stanza to a channel and waits for the network's ack, which carries the post's `server_id`
 * or the refusal (`error`: 404 no such channel, 403 not its owner).
 */
async function sendToChannel(socket: WASocket, attrs: Record<string, string>, content: BinaryNode[]) {
  const ack = await socket.query({ tag: 'message', attrs, content })
  const error = ack.attrs.error
  if (error) throw new ChannelQueryError(Number(error), 'refused')
  return ack
}

async function postMessage(
  socket: WASocket,
  network: SocketNetworkConfig,
  channel: string,
  content: WaChannelPostContent,
): Promise<proto.IMessage> {
  if (content.kind === 'text') return { extendedTextMessage: { text: content.text } }
  // A channel's media are uploaded unencrypted (Baileys' raw upload for `…@newsletter`).
  return prepareWAMessageMedia(
    content.media === 'image'
      ? { image: content.data, mimetype: content.mimetype, caption: content.caption ?? undefined }
      : { video: content.data, mimetype: content.mimetype, caption: content.caption ?? undefined },
    { upload: socket.waUploadToServer, jid: channel, logger: socket.logger, options: network.options },
  )
}

/** The channel operations over one open socket. */
export function createWaChannels(socket: WASocket, network: SocketNetworkConfig): WaChannels {
  const run = async <T>(what: string, channel: string | undefined, work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      if (error instanceof AppError) throw error
      throw channelError(error, what, channel)
    }
  }
  return {
    list: () =>
      run('channel list', undefined, async () => {
        const answer = await mex(socket, QUERIES.subscribed, {})
        return (Array.isArray(answer) ? answer : []).map(mapChannel)
      }),
    get: (key) =>
      run('channel lookup', 'id' in key ? key.id : key.invite, async () =>
        mapChannel(
          await mex(socket, QUERIES.metadata, {
            fetch_creation_time: true,
            fetch_full_image: true,
            fetch_viewer_metadata: true,
            input: 'id' in key ? { key: key.id, type: 'JID' } : { key: key.invite, type: 'INVITE' },
          }),
        ),
      ),
    create: (name, description) =>
      run('channel creation', undefined, async () =>
        mapChannel(await mex(socket, QUERIES.create, { input: { name, description } })),
      ),
    follow: (channel) =>
      run('follow', channel, async () => {
        await mex(socket, QUERIES.follow, { newsletter_id: channel })
      }),
    unfollow: (channel) =>
      run('unfollow', channel, async () => {
        await mex(socket, QUERIES.unfollow, { newsletter_id: channel })
      }),
    posts: (channel, count, before) =>
      run('post fetch', channel, async () => {
        const result = await socket.query({
          tag: 'iq',
          attrs: { id: socket.generateMessageTag(), type: 'get', xmlns: 'newsletter', to: channel },
          content: [
            { tag: 'message_updates', attrs: { count: String(count), ...(before ? { after: before } : {}) } },
          ],
        })
        const messages = getBinaryNodeChild(getBinaryNodeChild(result, 'message_updates'), 'messages')
        return getBinaryNodeChildren(messages, 'message').map((message) => mapPost(channel, message))
      }),
    react: (channel, serverId, emoji) =>
      run('reaction', channel, async () => {
        await sendToChannel(
          socket,
          {
            to: channel,
            type: 'reaction',
            server_id: serverId,
            id: generateMessageIDV2(socket.user?.id),
            ...(emoji ? {} : { edit: '7' }),
          },
          [{ tag: 'reaction', attrs: emoji ? { code: emoji } : {} }],
        )
      }),
    post: (channel, content) =>
      run('post', channel, async () => {
        const message = await postMessage(socket, network, channel, content)
        const id = generateMessageIDV2(socket.user?.id)
        const ack = await sendToChannel(
          socket,
          {
            to: channel,
            id,
            type: content.kind === 'text' ? 'text' : 'media',
            ...(content.kind === 'media' ? { mediatype: content.media } : {}),
          },
          [{ tag: 'plaintext', attrs: {}, content: proto.Message.encode(message).finish() }],
        )
        return { id, serverId: ack.attrs.server_id ?? null }
      }),
  }
}
