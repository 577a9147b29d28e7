import {
  type BinaryNode,
  downloadMediaMessage,
  generateMessageIDV2,
  generateWAMessage,
  getUrlInfo,
  isJidGroup,
  jidNormalizedUser,
  proto,
  type WAMessage,
  type WASocket,
} from '@whiskeysockets/baileys'
import { type Dispatcher, request } from 'undici'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import { mapSentMessage, toProtocolContent, toProtocolKey, toQuotedMessage } from './message-mapping'
import type { SocketNetworkConfig } from './network-endpoint'
import { createWaGroups, groupError } from './wa-groups'
import { createWaChannels } from './wa-channels'
import { toChatModification } from './chat-settings'
import type { WaAccount, WaConnection, WaNumberLookup } from '../contract/network'

const DEFAULT_SEND_TIMEOUT_MS = 60_000

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

/** Each socket's number, so a connection tells which socket it runs on. */
const linkIds = new WeakMap<WASocket, number>()
let lastLinkId = 0

function linkIdOf(socket: WASocket): number {
  let id = linkIds.get(socket)
  if (id === undefined) linkIds.set(socket, (id = ++lastLinkId))
  return id
}

/**
 * What Baileys' sendMessage puts beside a message of this content: deletes and edits are marked on the stanza,
 * a poll carries its meta node. A message sent again from its stored encoding needs the same.
 */
function relayExtras(message: proto.IMessage): {
  additionalAttributes: Record<string, string>
  additionalNodes: BinaryNode[]
} {
  const protocol = message.protocolMessage
  const additionalAttributes: Record<string, string> = {}
  const additionalNodes: BinaryNode[] = []
  if (protocol?.type === proto.Message.ProtocolMessage.Type.REVOKE) {
    const key = protocol.key
    additionalAttributes.edit = isJidGroup(key?.remoteJid ?? undefined) && !key?.fromMe ? '8' : '7'
  } else if (protocol?.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
    additionalAttributes.edit = '1'
  } else if (message.pollCreationMessage || message.pollCreationMessageV2 || message.pollCreationMessageV3) {
    additionalNodes.push({ tag: 'meta', attrs: { polltype: 'creation' } })
  }
  return { additionalAttributes, additionalNodes }
}

/** WhatsApp Business on Android (smba) or iOS (smbi): the platform the network names at link (creds.platform). */
function isBusinessPlatform(platform: string | undefined): boolean {
  return platform === 'smba' || platform === 'smbi'
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
    business: isBusinessPlatform(socket.authState.creds.platform),
    linkId: linkIdOf(socket),
    groups: createWaGroups(socket),
    channels: createWaChannels(socket, network),
    newMessageId: () => generateMessageIDV2(socket.user?.id),
    // Baileys' sendMessage in two steps, so the message can be stored between building and sending it.
    async send(to, content, options = {}) {
      const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS
      let built: WAMessage
      try {
        built = await withTimeout(
          generateWAMessage(to, toProtocolContent(content, options.mentions), {
            logger: socket.logger,
            userJid: socket.authState.creds.me?.id ?? account.id,
            // The options sendMessage gives it: a text's link preview, media uploads through the instance's proxy.
            getUrlInfo: (text) =>
              getUrlInfo(text, { thumbnailWidth: 192, fetchOpts: { timeout: 3000 }, logger: socket.logger }),
            getProfilePicUrl: socket.profilePictureUrl,
            getCallLink: socket.createCallLink,
            upload: socket.waUploadToServer,
            options: network.options,
            messageId: options.messageId ?? generateMessageIDV2(socket.user?.id),
            ...(options.expiration ? { ephemeralExpiration: options.expiration } : {}),
            ...(options.quoted ? { quoted: toQuotedMessage(options.quoted) } : {}),
            // A status's look: a text's background and font (and a voice status's background).
            ...(options.status?.backgroundColor && { backgroundColor: options.status.backgroundColor }),
            ...(options.status?.font !== undefined && { font: options.status.font }),
          }),
          timeoutMs,
          'message',
        )
      } catch (error) {
        throw sendError(error, to)
      }
      const message = built.message
      const id = built.key.id
      if (!message || !id) throw new AppError('upstream_failed', 'The network did not take the message.')
      const sent = mapSentMessage({ ...built, message }, to, content)
      // A failure to keep it sends nothing.
      await options.beforeSending?.(sent)
      try {
        await withTimeout(
          socket.relayMessage(to, message, {
            messageId: id,
            ...relayExtras(message),
            // A status goes to the devices of these accounts, each given the sender key (as sendMessage does).
            ...(options.status && { statusJidList: options.status.recipients }),
          }),
          timeoutMs,
          'message',
        )
      } catch (error) {
        throw sendError(error, to)
      }
      // As sendMessage does: the app's own send comes back as a message event.
      process.nextTick(() => {
        socket.upsertMessage(built, 'append').catch((error: unknown) => {
          logger.warn({ err: error, messageId: id }, 'announcing an own send to Baileys failed')
        })
      })
      return sent
    },
    async resend(to, id, content) {
      const message = proto.Message.decode(content)
      try {
        await withTimeout(
          socket.relayMessage(to, message, { messageId: id, ...relayExtras(message) }),
          DEFAULT_SEND_TIMEOUT_MS,
          'message',
        )
      } catch (error) {
        throw sendError(error, to)
      }
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
        return { number, jid: hit?.jid ?? null }
      })
    },
    async setAbout(text) {
      try {
        await socket.updateProfileStatus(text)
      } catch (error) {
        throw upstreamError(error, 'about text')
      }
    },
    async setName(name) {
      try {
        await socket.updateProfileName(name)
      } catch (error) {
        throw upstreamError(error, 'display name')
      }
    },
    async setPicture(image) {
      try {
        await socket.updateProfilePicture(account.id, image)
      } catch (error) {
        throw upstreamError(error, 'profile picture')
      }
    },
    async privacy() {
      try {
        return (await socket.fetchPrivacySettings(true)) as Record<string, string>
      } catch (error) {
        throw upstreamError(error, 'privacy settings')
      }
    },
    async setPrivacy(category, value) {
      const update = {
        last: socket.updateLastSeenPrivacy,
        online: socket.updateOnlinePrivacy,
        profile: socket.updateProfilePicturePrivacy,
        status: socket.updateStatusPrivacy,
        readreceipts: socket.updateReadReceiptsPrivacy,
        groupadd: socket.updateGroupsAddPrivacy,
      }[category] as (value: string) => Promise<void>
      try {
        await update(value)
      } catch (error) {
        throw upstreamError(error, 'privacy setting')
      }
    },
    async setBlocked(chat, blocked) {
      try {
        await socket.updateBlockStatus(chat, blocked ? 'block' : 'unblock')
      } catch (error) {
        throw upstreamError(error, blocked ? 'block' : 'unblock')
      }
    },
    async modifyChat(chat, change) {
      try {
        await socket.chatModify(toChatModification(change), chat)
      } catch (error) {
        throw upstreamError(error, `chat ${change.kind} change`)
      }
    },
    async setDisappearing(chat, seconds) {
      if (isJidGroup(chat)) {
        // A group's timer is its own setting: a member may be refused it (the info is locked to admins).
        await socket
          .groupToggleEphemeral(chat, seconds)
          .catch((error: unknown) => Promise.reject(groupError(error, 'disappearing messages setting', chat)))
        return
      }
      try {
        await socket.sendMessage(chat, { disappearingMessagesInChat: seconds })
      } catch (error) {
        throw upstreamError(error, 'disappearing messages setting')
      }
    },
    async blocklist() {
      let jids: string[]
      try {
        jids = (await socket.fetchBlocklist()).filter((jid): jid is string => Boolean(jid))
      } catch (error) {
        throw upstreamError(error, 'block list')
      }
      return Promise.all(
        jids.map(async (chat) => {
          const pn = chat.endsWith('@lid') ? await socket.signalRepository.lidMapping.getPNForLID(chat) : chat
          return { chat, phone: pn ? pn.split('@')[0]!.split(':')[0]! : null }
        }),
      )
    },
    async rejectCall(callId, from) {
      try {
        await socket.rejectCall(callId, from)
      } catch (error) {
        throw upstreamError(error, 'call rejection')
      }
    },
    async profile(chat) {
      const picture = socket.profilePictureUrl(chat, 'image', 10_000).catch((error: unknown) => {
        // The network answers 404 (or 401 for a picture hidden by privacy) when there is none to show.
        const code = (error as { data?: unknown; output?: { statusCode?: number } })?.data
        if (code === 404 || code === 401) return undefined
        throw upstreamError(error, 'profile picture')
      })
      const about = chat.endsWith('@g.us')
        ? Promise.resolve(undefined)
        : socket.fetchStatus(chat).catch((error: unknown) => {
            throw upstreamError(error, 'about text')
          })
      const [pictureUrl, status] = await Promise.all([picture, about])
      const text = (status?.[0] as { status?: { status?: string | null } } | undefined)?.status?.status
      return { pictureUrl: pictureUrl ?? null, about: text ?? null }
    },
    async fetchPicture(url, maxBytes) {
      let response: Dispatcher.ResponseData
      try {
        response = await request(url, { dispatcher: network.options.dispatcher, bodyTimeout: 10_000 })
      } catch (error) {
        throw upstreamError(error, 'profile picture download')
      }
      if (response.statusCode !== 200) {
        await response.body.dump()
        throw new AppError(
          'upstream_failed',
          `The network answered HTTP ${response.statusCode} for the picture.`,
        )
      }
      const data = Buffer.from(await response.body.arrayBuffer())
      if (data.length > maxBytes) {
        throw new AppError('payload_too_large', 'The profile picture is larger than the media limit.')
      }
      return data
    },
    async lidOf(chat) {
      try {
        return await socket.signalRepository.lidMapping.getLIDForPN(chat)
      } catch (error) {
        throw upstreamError(error, 'LID lookup')
      }
    },
    async phoneOf(lid) {
      const phone = await socket.signalRepository.lidMapping.getPNForLID(lid).catch(() => null)
      return phone ? jidNormalizedUser(phone) : null
    },
    async read(keys) {
      try {
        await socket.readMessages(keys.map(toProtocolKey))
      } catch (error) {
        throw upstreamError(error, 'read receipt')
      }
    },
    async presence(state, chat) {
      try {
        await socket.sendPresenceUpdate(state, chat)
      } catch (error) {
        throw upstreamError(error, 'presence')
      }
    },
    async subscribePresence(chat) {
      try {
        await socket.presenceSubscribe(chat)
      } catch (error) {
        throw upstreamError(error, 'presence subscription')
      }
    },
    async downloadMedia(key, content) {
      const message = toQuotedMessage({ key, content })
      const download = (target: WAMessage) =>
        downloadMediaMessage(target, 'buffer', { options: network.options })
      try {
        return await download(message)
      } catch (error) {
        const status = (error as { output?: { statusCode?: number } })?.output?.statusCode
        if (status !== 404 && status !== 410) throw upstreamError(error, 'media download')
      }
      // The network forgot the file: the account's phone is asked to upload it again (media retry). Its new
      // path is on the host media_conn names, which is asked first, as for an upload.
      let reuploaded: WAMessage
      try {
        await socket.refreshMediaConn(false)
        reuploaded = await socket.updateMediaMessage(message)
      } catch (error) {
        throw new AppError(
          'media_expired',
          'The file has expired on the network and the phone could not upload it again.',
          { cause: error },
        )
      }
      try {
        return await download(reuploaded)
      } catch (error) {
        throw upstreamError(error, 'media download')
      }
    },
  }
}
