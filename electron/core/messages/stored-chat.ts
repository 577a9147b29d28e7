import { AppError } from '../errors'
import type { MessageStore, StoredChat } from '../store/message-store'

/**
 * The chat a chat operation acts on: it must have a stored message (it is among `chats`); otherwise
 * chat_not_found, naming the `number` parameter, and the caller sends nothing.
 */
export async function storedChat(
  store: Pick<MessageStore, 'chat'>,
  instanceId: string,
  chat: string,
): Promise<StoredChat> {
  const stored = await store.chat(instanceId, chat)
  if (!stored) {
    throw new AppError(
      'chat_not_found',
      `${chat} has no stored message: it is not among this account's chats.`,
      {
        details: { parameter: 'number' },
      },
    )
  }
  return stored
}
