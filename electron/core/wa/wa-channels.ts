import {
  type BinaryNode,
  DEFAULT_ORIGIN,
  generateMessageIDV2,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  getUrlFromDirectPath,
  normalizeMessageContent,
  prepareWAMessageMedia,
  proto,
  S_WHATSAPP_NET,
  type WASocket,
} from '@whiskeysockets/baileys'
import { request } from 'undici'
import { AppError } from '../errors'
import type {
  WaChannel,
  WaChannelFile,
  WaChannelPost,
  WaChannelPostContent,
  WaChannels,
} from '../contract/network'
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

/** Asks the network for a channel's newest `count` posts, oldest first; `before`: older than that server id. */
async function fetchPosts(socket: WASocket, channel: string, count: number, before?: string) {
  const result = await socket.query({
    tag: 'iq',
    attrs: { id: socket.generateMessageTag(), type: 'get', xmlns: 'newsletter', to: channel },
    content: [
      { tag: 'message_updates', attrs: { count: String(count), ...(before ? { after: before } : {}) } },
    ],
  })
  const messages = getBinaryNodeChild(getBinaryNodeChild(result, 'message_updates'), 'messages')
  return getBinaryNodeChildren(messages, 'message')
}

/** The fields of a message's file that name it on the media host. */
interface FileFields {
  url?: string | null
  directPath?: string | null
  fileSha256?: Uint8Array | null
  mimetype?: string | null
  fileName?: string | null
}

const FILE_FIELDS = [
  'imageMessage',
  'videoMessage',
  'ptvMessage',
  'audioMessage',
  'documentMessage',
  'stickerMessage',
] as const

function fileFieldsOf(post: BinaryNode): FileFields | undefined {
  const plaintext = getBinaryNodeChild(post, 'plaintext')?.content
  const content = plaintext instanceof Uint8Array ? proto.Message.decode(plaintext) : undefined
  const message = normalizeMessageContent(content)
  for (const field of FILE_FIELDS) {
    const file = message?.[field] as FileFields | null | undefined
    if (file) return file
  }
  return undefined
}

/**
 * Fetches a channel's file as it is stored (channels' media are not end-to-end encrypted): by its direct path on
 * the host its URL names, as Baileys finds an encrypted file, trusted as this connection's sockets trust it.
 */
async function downloadFile(
  network: SocketNetworkConfig,
  file: FileFields,
  maxBytes: number,
): Promise<WaChannelFile> {
  const host = file.url ? new URL(file.url).host : undefined
  const url = file.directPath ? getUrlFromDirectPath(file.directPath, host) : file.url
  if (!url) throw new AppError('upstream_failed', 'The post names no address for its file.')
  const response = await request(url, {
    dispatcher: network.options.dispatcher,
    headers: { origin: DEFAULT_ORIGIN },
    bodyTimeout: 30_000,
  })
  if (response.statusCode === 404 || response.statusCode === 410) {
    await response.body.dump()
    throw new AppError('media_expired', "The network's media host no longer holds this post's file.")
  }
  if (response.statusCode !== 200) {
    await response.body.dump()
    throw new AppError('upstream_failed', `The network answered HTTP ${response.statusCode} for the file.`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) {
      response.body.destroy()
      throw new AppError('payload_too_large', "The post's file is larger than the media limit.")
    }
    chunks.push(chunk)
  }
  return {
    data: Buffer.concat(chunks),
    mimetype: file.mimetype ?? null,
    fileName: file.fileName ?? null,
    sha256: file.fileSha256?.length ? Buffer.from(file.fileSha256) : null,
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
      run('post fetch', channel, async () =>
        (await fetchPosts(socket, channel, count, before)).map((message) => mapPost(channel, message)),
      ),
    file: (channel, serverId, maxBytes) =>
      run('media download', channel, async () => {
        // The newest post older than the next one: the post itself, when the channel has it.
        const [post] = await fetchPosts(socket, channel, 1, String(BigInt(serverId) + 1n))
        if (!post || post.attrs.server_id !== serverId) {
          throw new AppError('post_not_found', `${channel} has no post ${serverId}.`)
        }
        const file = fileFieldsOf(post)
        return file ? downloadFile(network, file, maxBytes) : null
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
