import type { Limits } from '../config'
import { AppError } from '../errors'
import type { WaConnection } from '../contract/network'
import type { MessageSender } from './message-sender'
import { checkNumbers, type NumberCheck } from './number-check'

export interface ContactLookupDeps {
  limits: Limits
  sender: MessageSender
  connection(instanceId: string): Promise<WaConnection>
  /** Where this server serves a chat's profile picture (the caller adds its access token). */
  pictureUrl(instanceId: string, chat: string): string
}

/** A contact's or group's profile as the API shows it: the picture through this server, never the network's URL. */
export interface ContactProfile {
  chat: string
  about: string | null
  picture_url: string | null
}

/** What a bot reads about numbers and contacts before writing to them: nothing is sent to them. */
export class ContactLookup {
  constructor(private readonly deps: ContactLookupDeps) {}

  async checkNumbers(instanceId: string, numbers: readonly string[]): Promise<NumberCheck[]> {
    return checkNumbers(await this.deps.connection(instanceId), numbers)
  }

  async profile(instanceId: string, number: string): Promise<ContactProfile> {
    const chat = await this.deps.sender.chatOf(instanceId, number)
    const connection = await this.deps.connection(instanceId)
    const { pictureUrl, about } = await connection.profile(chat)
    return { chat, about, picture_url: pictureUrl ? this.deps.pictureUrl(instanceId, chat) : null }
  }

  /** Blocks or unblocks a contact; answers its chat id. */
  async setBlocked(instanceId: string, number: string, blocked: boolean): Promise<string> {
    const chat = await this.deps.sender.chatOf(instanceId, number)
    const connection = await this.deps.connection(instanceId)
    await connection.setBlocked(chat, blocked)
    return chat
  }

  /** The contacts this account blocked, as the network lists them. */
  async blocked(instanceId: string): Promise<Array<{ chat: string; phone: string | null }>> {
    return (await this.deps.connection(instanceId)).blocklist()
  }

  /** The picture itself, fetched from the network now (it changes; nothing is cached). */
  async picture(instanceId: string, chat: string): Promise<Buffer> {
    const connection = await this.deps.connection(instanceId)
    const { pictureUrl } = await connection.profile(chat)
    if (!pictureUrl) throw new AppError('not_found', `${chat} has no profile picture to show.`)
    return connection.fetchPicture(pictureUrl, this.deps.limits.mediaBytes)
  }
}
