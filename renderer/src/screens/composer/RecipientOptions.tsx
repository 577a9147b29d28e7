import type { ChatList, ContactList, GroupList } from '../../api/types'
import type { ApiClient } from '../../api/client'
import { useOperation } from '../../app/use-operation'

interface Recipient {
  value: string
  label: string
}

/** The instance's groups, contacts and chats as recipients; a part that cannot be read is left out. */
async function recipientsOf(api: ApiClient, instanceId: string): Promise<Recipient[]> {
  if (!instanceId) return []
  const params = { instance_id: instanceId }
  const [groups, contacts, chats] = await Promise.all([
    api.call<GroupList>('groups', params).catch(() => ({ groups: [] })),
    api.call<ContactList>('contacts', params).catch(() => ({ contacts: [] })),
    api.call<ChatList>('chats', params).catch(() => ({ chats: [] })),
  ])
  const seen = new Map<string, Recipient>()
  for (const group of groups.groups) seen.set(group.id, { value: group.id, label: `Group: ${group.subject}` })
  for (const contact of contacts.contacts) {
    const value = contact.phone ?? contact.chat
    if (!seen.has(value)) seen.set(value, { value, label: contact.push_name ?? `+${value}` })
  }
  for (const { chat } of chats.chats) {
    const phone = chat.endsWith('@s.whatsapp.net') ? chat.split('@')[0] : undefined
    if (!seen.has(chat) && !(phone && seen.has(phone))) seen.set(chat, { value: chat, label: 'Chat' })
  }
  return [...seen.values()]
}

/** A datalist of the instance's groups, contacts and chats, for the composer's number field. */
export function RecipientOptions({ id, instanceId }: { id: string; instanceId: string }) {
  const [recipients] = useOperation((api) => recipientsOf(api, instanceId), `recipients/${instanceId}`)
  return (
    <datalist id={id}>
      {(recipients.status === 'ready' ? recipients.data : []).map((recipient) => (
        <option key={recipient.value} value={recipient.value} label={recipient.label} />
      ))}
    </datalist>
  )
}
