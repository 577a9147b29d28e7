import { Type } from '@sinclair/typebox'
import { OneOf } from '../schema'

/** The colours the apps offer a label, by index (0–19). */
export const LABEL_COLOR_COUNT = 20

/** A WhatsApp Business account's label, as labels, chats and the label operations answer it. */
export const LabelSchema = Type.Object({
  id: Type.String({ description: 'The network’s id of the label (digits).' }),
  name: Type.String(),
  color: Type.Integer({
    minimum: 0,
    maximum: LABEL_COLOR_COUNT - 1,
    description: 'The apps’ colour index, 0 to 19.',
  }),
})

const SOURCE = OneOf(['api', 'phone'] as const, {
  description: 'api: through this API; phone: on the phone or another linked device (the app state).',
})

/** label.updated's data: a label created, renamed, recoloured or deleted. */
export const LabelUpdatedEventSchema = Type.Composite([
  LabelSchema,
  Type.Object({ deleted: Type.Boolean(), source: SOURCE }),
])

/** chat.labeled's data: a label put on a chat or taken off it. */
export const ChatLabeledEventSchema = Type.Object({
  chat: Type.String({ description: 'The chat id (as the app state names it for changes made elsewhere).' }),
  label_id: Type.String(),
  labeled: Type.Boolean({ description: 'true: put on; false: taken off.' }),
  labels: Type.Array(Type.String(), { description: 'The ids of the labels on the chat now.' }),
  source: SOURCE,
})

/** message.labeled's data: a label put on a message or taken off it. */
export const MessageLabeledEventSchema = Type.Object({
  id: Type.String({ description: 'The message id.' }),
  chat: Type.String({ description: 'The chat id.' }),
  label_id: Type.String(),
  labeled: Type.Boolean({ description: 'true: put on; false: taken off.' }),
  labels: Type.Array(Type.String(), { description: 'The ids of the labels on the message now.' }),
  source: SOURCE,
})
