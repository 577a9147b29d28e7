import {
  type BinaryNode,
  getContentType,
  normalizeMessageContent,
  type proto,
  type WASocket,
} from '@whiskeysockets/baileys'
import type { WaContentType, WaQuotedMessage, WaStatusUpdate } from './wa-types'

/** Linkdesk's kind of a message from the name of its content field. */
export function contentTypeOf(name: string | undefined): WaContentType {
  switch (name) {
    case 'conversation':
    case 'extendedTextMessage':
      return 'text'
    case 'imageMessage':
      return 'image'
    case 'videoMessage':
      return 'video'
    case 'audioMessage':
      return 'audio'
    case 'documentMessage':
      return 'document'
    case 'stickerMessage':
      return 'sticker'
    default:
      return 'other'
  }
}

/** The message a reply quotes (from the content's contextInfo), or null when it is not a reply. */
export function quotedOf(content: proto.IMessage): WaQuotedMessage | null {
  const name = getContentType(content)
  const inner = name ? (content[name] as { contextInfo?: proto.IContextInfo | null } | undefined) : undefined
  const context = inner && typeof inner === 'object' ? inner.contextInfo : undefined
  if (!context?.stanzaId) return null
  const quoted = normalizeMessageContent(context.quotedMessage ?? undefined)
  return {
    id: context.stanzaId,
    participant: context.participant ?? null,
    type: quoted ? contentTypeOf(getContentType(quoted)) : 'other',
    text:
      quoted?.conversation ??
      quoted?.extendedTextMessage?.text ??
      quoted?.imageMessage?.caption ??
      quoted?.videoMessage?.caption ??
      quoted?.documentMessage?.caption ??
      null,
  }
}

/**
 * Reports the server's acknowledgement of each message this socket sent as status `sent`. Baileys acts only
 * on error acks (status `failed` through messages.update); a success ack is the moment a send is known to
 * have reached the network, which `sendMessage` (resolving once the frame is written) does not tell.
 */
export function listenForServerAcks(socket: WASocket, report: (update: WaStatusUpdate) => void): void {
  socket.ws.on('CB:ack,class:message', (node: BinaryNode) => {
    const { id, from, error, t, participant } = node.attrs
    if (!id || error) return
    report({
      id,
      chat: from ?? '',
      status: 'sent',
      participant: participant ?? null,
      timestamp: t ?? null,
      errorCode: null,
    })
  })
}
