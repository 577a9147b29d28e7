import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { LinkdeskMessage } from '../contract/message'
import type { SentAnswer, WaConnection, WaStatusAudience } from '../contract/network'
import { networkKeyOf, type MessageStore } from '../store/message-store'
import type { StoredChats } from './chat-book'
import type { MessageSender, SendRequest } from './message-sender'

/** Where status updates go and come from: WhatsApp's broadcast chat. */
export const STATUS_BROADCAST = 'status@broadcast'

/** The send_message types a status update may be. */
export const STATUS_TYPES = ['text', 'image', 'video', 'voice'] as const

/** The fonts a text status may use (the network's ExtendedTextMessage.FontType numbers). */
export const STATUS_FONTS = [0, 1, 2, 6, 7, 8, 9, 10] as const

const COLOUR = /^#?([0-9a-f]{6}|[0-9a-f]{8})$/i

/** Contacts read a page at a time when a status goes to all of them. */
const CONTACT_PAGE = 500

/** One post_status request, read from the API parameters. */
export interface StatusRequest {
  type: string
  /** The kinds' own parameters (`message`, `media_url`, `media_base64`, `file`). */
  params: SendRequest['params']
  /** The numbers it goes to; absent: every contact of the account. */
  numbers?: string[]
  backgroundColor?: string
  font?: number
}

export interface StatusUpdatesDeps {
  store: MessageStore
  chats: StoredChats
  sender: MessageSender
  events: EventSink
  connection(instanceId: string): Promise<WaConnection>
}

/** A status posted: the sent-message result and the chat ids it went to. */
export interface PostedStatus {
  message: SentAnswer
  recipients: string[]
}

function checkLook(request: StatusRequest): void {
  const { type, backgroundColor, font } = request
  if (!(STATUS_TYPES as readonly string[]).includes(type)) {
    throw new AppError('invalid_parameter', `type must be one of: ${STATUS_TYPES.join(', ')}.`, {
      details: { parameter: 'type' },
    })
  }
  if (backgroundColor !== undefined && !COLOUR.test(backgroundColor)) {
    throw new AppError('invalid_parameter', 'background_color must be #RRGGBB or #AARRGGBB.', {
      details: { parameter: 'background_color' },
    })
  }
  if (font !== undefined && !(STATUS_FONTS as readonly number[]).includes(font)) {
    throw new AppError('invalid_parameter', `font must be one of ${STATUS_FONTS.join(', ')}.`, {
      details: { parameter: 'font' },
    })
  }
  if (font !== undefined && type !== 'text') {
    throw new AppError('invalid_parameter', 'font is for a text status.', { details: { parameter: 'font' } })
  }
  if (backgroundColor !== undefined && type !== 'text' && type !== 'voice') {
    throw new AppError('invalid_parameter', 'background_color is for a text or voice status.', {
      details: { parameter: 'background_color' },
    })
  }
}

/**
 * Status updates: posting the account's own (text with its look, image, video, voice) to its contacts or a
 * list, through the paced send queue like any message, and viewing a contact's (its read receipt).
 */
export class StatusUpdates {
  constructor(private readonly deps: StatusUpdatesDeps) {}

  /** Posts a status update; no_recipients (nothing sent) when it would go to nobody. */
  async post(instanceId: string, request: StatusRequest): Promise<PostedStatus> {
    checkLook(request)
    // An image or a video is send_message's media, checked to be that kind once its file is read.
    const file = request.type === 'image' || request.type === 'video' ? request.type : undefined
    const send: SendRequest = {
      number: STATUS_BROADCAST,
      type: file ? 'media' : request.type,
      params: request.params,
    }
    this.deps.sender.check(send)
    const own = `${(await this.deps.connection(instanceId)).account.number}@s.whatsapp.net`
    const recipients = await this.recipients(instanceId, request.numbers, own)
    const audience: WaStatusAudience = {
      recipients: [...recipients, own],
      ...(request.backgroundColor !== undefined && { backgroundColor: request.backgroundColor }),
      ...(request.font !== undefined && { font: request.font }),
    }
    const message = await this.deps.sender.postStatus(
      instanceId,
      send,
      audience,
      (posted) =>
        this.deps.events.emitForMessage(instanceId, posted.id, 'status.sent', {
          ...posted,
          source: 'api',
          recipients,
        }),
      file,
    )
    return { message, recipients }
  }

  /** The stored status updates (the account's and its contacts'), newest first, a page at a time. */
  statuses(
    instanceId: string,
    page: { limit?: number; cursor?: string },
  ): Promise<{ messages: LinkdeskMessage[]; next_cursor: string | null }> {
    return this.deps.chats.messages(instanceId, STATUS_BROADCAST, page)
  }

  /** Views a contact's status update: its poster gets the read receipt (as the account's privacy allows). */
  async view(instanceId: string, statusId: string): Promise<LinkdeskMessage> {
    const stored = await this.deps.store.get(instanceId, statusId)
    if (!stored || stored.message.chat !== STATUS_BROADCAST || stored.message.from_me) {
      throw new AppError('status_not_found', `No stored status update of a contact has the id ${statusId}.`, {
        details: { parameter: 'status_id' },
      })
    }
    const connection = await this.deps.connection(instanceId)
    await connection.read([networkKeyOf(stored)])
    await this.deps.store.markRead(instanceId, [statusId])
    return stored.message
  }

  /** The chat ids a status goes to: the numbers named (each checked on the network), or every contact. */
  private async recipients(
    instanceId: string,
    numbers: string[] | undefined,
    own: string,
  ): Promise<string[]> {
    const chats = numbers
      ? await Promise.all(numbers.map((number) => this.deps.sender.chatOf(instanceId, number)))
      : await this.contacts(instanceId)
    const people = chats.filter(
      (chat) => chat !== own && (chat.endsWith('@s.whatsapp.net') || chat.endsWith('@lid')),
    )
    const unique = [...new Set(people)]
    if (unique.length === 0) {
      throw new AppError(
        'no_recipients',
        numbers
          ? 'numbers names nobody: give at least one number.'
          : 'The account has no contacts yet: name the numbers the status goes to.',
        { details: { parameter: 'numbers' } },
      )
    }
    return unique
  }

  /** Every contact of the account (the people who wrote to it), by phone number where known. */
  private async contacts(instanceId: string): Promise<string[]> {
    const found: string[] = []
    let cursor: string | undefined
    do {
      const page = await this.deps.chats.contacts(instanceId, { limit: CONTACT_PAGE, cursor })
      for (const contact of page.contacts)
        found.push(contact.phone ? `${contact.phone}@s.whatsapp.net` : contact.chat)
      cursor = page.next_cursor ?? undefined
    } while (cursor)
    return found
  }
}
