/** Events that change a chat's summary or flags (a status changes none): a chat list reads that chat again. */
export const CHAT_EVENTS: ReadonlySet<string> = new Set([
  'message.received',
  'message.sent',
  'message.edited',
  'message.deleted',
  'chat.updated',
  'chat.cleared',
  'chat.deleted',
  'chat.labeled',
])

/** Events after which a group's subject may be new: the group list is read again. */
export const GROUP_NAME_EVENTS: ReadonlySet<string> = new Set(['group.joined', 'group.updated'])
