import { hrefFor } from '../../app/routes'

/** The Chats screen's address of an instance, with a chat open when one is named. */
export function chatHref(instanceId: string, chat?: string): string {
  const screen = hrefFor('chats', instanceId)
  return chat ? `${screen}?${new URLSearchParams({ chat }).toString()}` : screen
}
