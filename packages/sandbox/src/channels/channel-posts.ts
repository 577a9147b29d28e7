import type { proto } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import { sha256 } from '../media/media-crypto'
import type { MediaStore } from '../media/media-store'
import type { SandboxNetwork } from '../network'
import { child, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext } from '../stanzas/stanza-router'
import { plaintextOf, postNode } from './channel-queries'
import type { Channel, ChannelPost } from './channel-registry'

/** The ack errors of a message to a channel, as the server writes them in `<ack error>`. */
const UNKNOWN_CHANNEL = '404'
const NOT_OWNER = '403'
const EMPTY_POST = '400'

/** A channel JID: messages to one are plaintext, not Signal-encrypted. */
export function isChannelJid(jid: string | undefined): boolean {
  return jid?.endsWith('@newsletter') ?? false
}

/** A file a phone posts to its own channel: an image or a video. */
export interface ChannelFile {
  data: Buffer
  mimetype: string
}

/**
 * A post's file as the network keeps a channel's media: stored on the media host as it is (channels are not
 * end-to-end encrypted, so there is no media key), named by its direct path, with the SHA-256 and length of
 * its bytes in the message. Undefined for a file that is neither an image nor a video.
 */
export function channelMediaContent(
  store: MediaStore,
  file: ChannelFile,
  caption: string | undefined,
): proto.IMessage | undefined {
  const kind = file.mimetype.startsWith('image/')
    ? 'imageMessage'
    : file.mimetype.startsWith('video/')
      ? 'videoMessage'
      : undefined
  if (!kind) return undefined
  const { directPath, url } = store.put(file.data)
  return {
    [kind]: {
      url,
      directPath,
      fileSha256: sha256(file.data),
      fileLength: file.data.length,
      mimetype: file.mimetype,
      ...(caption ? { caption } : {}),
    },
  }
}

/**
 * Keeps a post by the channel's owner and delivers it to every device of its followers and of the owner
 * (except the device that sent it), as `<message from="<channel>" id server_id t type><plaintext/>`.
 */
export function publish(
  network: SandboxNetwork,
  channel: Channel,
  owner: Account,
  post: { id: string; type: string; content: Buffer },
  from?: LinkedDevice,
): ChannelPost {
  const kept = channel.post(post.id, post.type, post.content)
  const stanza = postNode(kept, { from: channel.jid })
  for (const account of network.channels.audience(channel)) {
    for (const device of account.activeDevices()) if (device !== from) device.deliver(stanza)
  }
  network.events.emit('channel', {
    channel: channel.jid,
    phone: owner.phone,
    change: 'post',
    serverId: kept.serverId,
  })
  return kept
}

/** Why a linked device's message to a channel is refused, or undefined when the network takes it. */
function refusalOf(channel: Channel | undefined, account: Account, stanza: BinaryNode): string | undefined {
  if (!channel) return UNKNOWN_CHANNEL
  if (stanza.attrs.type === 'reaction') return stanza.attrs.server_id ? undefined : EMPTY_POST
  if (!channel.isOwner(account)) return NOT_OWNER
  return plaintextOf(stanza)?.length ? undefined : EMPTY_POST
}

/**
 * A linked device's message to a channel: a post by its owner (kept, numbered and delivered to the
 * followers) or a reaction to a post (`type="reaction" server_id`, `<reaction code>`; none takes it back).
 * The ack carries the post's `server_id`; a refusal is an ack with `error` and changes nothing.
 */
export async function handleChannelMessage(ctx: StanzaContext, stanza: BinaryNode): Promise<void> {
  const { network, connection, session } = ctx
  const id = stanza.attrs.id ?? ''
  const to = stanza.attrs.to ?? ''
  if (!session) return
  const channel = network.channels.get(to)
  const refusal = refusalOf(channel, session.account, stanza)
  const ack = { class: 'message', id, from: to, t: String(unixNow()) }
  if (!channel || refusal) {
    ctx.log.debug({ id, to, error: refusal }, 'channel message refused')
    return connection.send(node('ack', { ...ack, error: refusal ?? UNKNOWN_CHANNEL }))
  }
  if (stanza.attrs.type === 'reaction') {
    const serverId = Number(stanza.attrs.server_id)
    const emoji = child(stanza, 'reaction')?.attrs.code ?? ''
    if (!channel.react(session.account, serverId, emoji))
      return connection.send(node('ack', { ...ack, error: UNKNOWN_CHANNEL }))
    network.events.emit('channel', { channel: to, phone: session.account.phone, change: 'react', serverId })
    await network.state.flushed()
    return connection.send(node('ack', { ...ack, server_id: String(serverId) }))
  }
  const post = publish(
    network,
    channel,
    session.account,
    { id, type: stanza.attrs.type ?? 'text', content: plaintextOf(stanza) ?? Buffer.alloc(0) },
    session.device,
  )
  await network.state.flushed()
  connection.send(node('ack', { ...ack, server_id: String(post.serverId) }))
}

/**
 * A client's `<ack class="message">` for a channel post it was given: posts carry no receipts, so this ack is
 * what ends the device's mailbox holding the post.
 */
export function handleClientAck(ctx: StanzaContext, stanza: BinaryNode): void {
  if (stanza.attrs.class !== 'message' || !isChannelJid(stanza.attrs.to) || !ctx.session) return
  ctx.session.device.mailbox.confirm([stanza.attrs.id ?? ''])
}
