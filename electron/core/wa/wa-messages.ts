import {
  type AnyMessageContent,
  downloadMediaMessage,
  getContentType,
  isRealMessage,
  type MessageUserReceiptUpdate,
  normalizeMessageContent,
  proto,
  toNumber,
  type WAMessage,
  type WAMessageKey,
  type WAMessageUpdate,
  type WASocket,
} from '@whiskeysockets/baileys'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import { contentTypeOf, quotedOf } from './message-mapping'
import type { SocketNetworkConfig } from './network-endpoint'
import type {
  WaAccount,
  WaConnection,
  WaInboundMessage,
  WaMediaInfo,
  WaMessageKey,
  WaNumberLookup,
  WaOutgoingContent,
  WaSentMessage,
  WaStatus,
  WaStatusUpdate,
} from './wa-types'
import { unhandledCase } from '../exhaustive'

const DEFAULT_SEND_TIMEOUT_MS = 60_000

const STATUS_NAMES: Record<number, WaStatus> = {
  0: 'failed',
  1: 'pending',
  2: 'sent',
  3: 'delivered',
  4: 'read',
  5: 'played',
}

function timestampOf(value: unknown): string | null {
  if (value === null || value === undefined) return null
  const seconds = toNumber(value as number)
  return Number.isFinite(seconds) && seconds > 0 ? String(seconds) : null
}

function keyOf(key: WAMessageKey): WaMessageKey {
  return {
    id: key.id ?? '',
    chat: key.remoteJid ?? '',
    chatAlt: key.remoteJidAlt ?? null,
    fromMe: Boolean(key.fromMe),
    participant: key.participant ?? null,
    participantAlt: key.participantAlt ?? null,
  }
}

function mediaOf(content: proto.IMessage): WaMediaInfo | null {
  const media =
    content.imageMessage ??
    content.videoMessage ??
    content.audioMessage ??
    content.documentMessage ??
    content.stickerMessage
  if (!media) return null
  const fileLength = (media as { fileLength?: unknown }).fileLength
  return {
    mimetype: media.mimetype ?? null,
    fileName: content.documentMessage?.fileName ?? null,
    size: fileLength === null || fileLength === undefined ? null : toNumber(fileLength as number),
    seconds: content.videoMessage?.seconds ?? content.audioMessage?.seconds ?? null,
    ptt: Boolean(content.audioMessage?.ptt),
    sha256: media.fileSha256 ? Buffer.from(media.fileSha256).toString('hex') : null,
  }
}

/** Baileys' upserted messages as Linkdesk messages; protocol messages, reactions and stubs are left out. */
export function mapInboundMessages(messages: readonly WAMessage[]): WaInboundMessage[] {
  const mapped: WaInboundMessage[] = []
  for (const message of messages) {
    if (!message.message || !message.key.id || !isRealMessage(message)) continue
    const content = normalizeMessageContent(message.message)
    if (!content) continue
    const name = getContentType(content)
    mapped.push({
      key: keyOf(message.key),
      timestamp: timestampOf(message.messageTimestamp) ?? String(Math.floor(Date.now() / 1000)),
      pushName: message.pushName ?? null,
      type: contentTypeOf(name),
      contentName: name ?? null,
      text: content.conversation ?? content.extendedTextMessage?.text ?? null,
      caption:
        content.imageMessage?.caption ??
        content.videoMessage?.caption ??
        content.documentMessage?.caption ??
        null,
      media: mediaOf(content),
      quoted: quotedOf(content),
      content: proto.Message.encode(message.message).finish(),
    })
  }
  return mapped
}

/** Status changes of 1:1 messages (`messages.update`). */
export function mapStatusUpdates(updates: readonly WAMessageUpdate[]): WaStatusUpdate[] {
  const mapped: WaStatusUpdate[] = []
  for (const { key, update } of updates) {
    const status = typeof update.status === 'number' ? STATUS_NAMES[update.status] : undefined
    if (!status || !key.id) continue
    mapped.push({
      id: key.id,
      chat: key.remoteJid ?? '',
      status,
      participant: key.participant ?? null,
      timestamp: timestampOf(update.messageTimestamp),
      errorCode: status === 'failed' ? (update.messageStubParameters?.[0] ?? null) : null,
    })
  }
  return mapped
}

/** Per-member receipts of group messages (`message-receipt.update`). */
export function mapReceipts(receipts: readonly MessageUserReceiptUpdate[]): WaStatusUpdate[] {
  const mapped: WaStatusUpdate[] = []
  for (const { key, receipt } of receipts) {
    if (!key.id) continue
    const status: WaStatus | undefined = receipt.playedTimestamp
      ? 'played'
      : receipt.readTimestamp
        ? 'read'
        : receipt.receiptTimestamp
          ? 'delivered'
          : undefined
    if (!status) continue
    mapped.push({
      id: key.id,
      chat: key.remoteJid ?? '',
      status,
      participant: receipt.userJid ?? null,
      timestamp: timestampOf(receipt.playedTimestamp ?? receipt.readTimestamp ?? receipt.receiptTimestamp),
      errorCode: null,
    })
  }
  return mapped
}

function toBaileysContent(content: WaOutgoingContent): AnyMessageContent {
  if (content.kind === 'text') return { text: content.text }
  const { media, mimetype, caption } = content
  switch (content.kind) {
    case 'image':
      return { image: media, caption, mimetype }
    case 'video':
      return { video: media, caption, mimetype }
    case 'audio':
      return { audio: media, mimetype, ptt: content.ptt }
    case 'document':
      return {
        document: media,
        mimetype: mimetype ?? 'application/octet-stream',
        fileName: content.fileName,
        caption,
      }
    default:
      return unhandledCase(content, 'outgoing content')
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('upstream_timeout', `The network did not take the ${what} in time.`)),
      ms,
    )
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Reads a Baileys failure of a socket method as an AppError (never leaking Boom). */
function upstreamError(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error
  const code = (error as { output?: { statusCode?: number } })?.output?.statusCode
  if (code === 428)
    return new AppError('not_connected', `The connection closed during the ${what}.`, { cause: error })
  if (code === 408)
    return new AppError('upstream_timeout', `The network did not answer the ${what} in time.`, {
      cause: error,
    })
  return new AppError('upstream_failed', `The network refused the ${what}.`, { cause: error })
}

/**
 * Reads a failed send. The network answers 404 (item-not-found) for a chat that is not there for this
 * account, such as a group that does not exist or that it is not in (WhatsApp hides those): the caller's
 * mistake, not a refusal by the network.
 */
function sendError(error: unknown, to: string): AppError {
  if ((error as { data?: unknown })?.data === 404) {
    return new AppError(
      'recipient_not_found',
      `${to} is not a chat of this account: a group must exist and have the account as a member.`,
      { cause: error, details: { parameter: 'number' } },
    )
  }
  return upstreamError(error, 'message')
}

/** The messaging operations over one open socket. */
export function createWaConnection(
  socket: WASocket,
  account: WaAccount,
  network: SocketNetworkConfig,
  logger: Logger,
): WaConnection {
  return {
    account,
    async send(to, content, options = {}) {
      let sent: WAMessage | undefined
      try {
        sent = await withTimeout(
          socket.sendMessage(to, toBaileysContent(content)),
          options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS,
          'message',
        )
      } catch (error) {
        throw sendError(error, to)
      }
      if (!sent?.message || !sent.key.id)
        throw new AppError('upstream_failed', 'The network did not take the message.')
      const message = proto.Message.toObject(proto.Message.fromObject(sent.message), {
        longs: String,
        bytes: String,
        defaults: false,
      }) as Record<string, unknown>
      const result: WaSentMessage = {
        key: { remoteJid: sent.key.remoteJid ?? to, fromMe: true, id: sent.key.id },
        message,
        messageTimestamp: timestampOf(sent.messageTimestamp) ?? String(Math.floor(Date.now() / 1000)),
        content: proto.Message.encode(sent.message).finish(),
      }
      if (sent.key.participant) result.key.participant = sent.key.participant
      return result
    },
    async lookup(numbers) {
      const digits = numbers.map((n) => n.replace(/\D/g, ''))
      let found: Array<{ jid: string; exists: boolean }> | undefined
      try {
        found = await socket.onWhatsApp(...digits)
      } catch (error) {
        throw upstreamError(error, 'number lookup')
      }
      return digits.map((number): WaNumberLookup => {
        const hit = found?.find((entry) => entry.exists && entry.jid.startsWith(`${number}@`))
        return { number, exists: Boolean(hit), jid: hit?.jid ?? null }
      })
    },
    async downloadMedia(key, content) {
      const message: WAMessage = {
        key: {
          id: key.id,
          remoteJid: key.chat,
          fromMe: key.fromMe,
          participant: key.participant ?? undefined,
        },
        message: proto.Message.decode(content),
      }
      const download = (target: WAMessage) =>
        downloadMediaMessage(
          target,
          'buffer',
          { options: network.options },
          { logger, reuploadRequest: socket.updateMediaMessage },
        )
      try {
        return await download(message)
      } catch (error) {
        const status = (error as { output?: { statusCode?: number } })?.output?.statusCode
        if (status !== 404 && status !== 410) throw upstreamError(error, 'media download')
        try {
          return await download(await socket.updateMediaMessage(message))
        } catch (retryError) {
          throw upstreamError(retryError, 'media download')
        }
      }
    },
  }
}
