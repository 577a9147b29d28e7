/** The `number` parameter of every operation that addresses a chat: a phone number or a chat id. */
export const CHAT_NUMBER = {
  type: 'string',
  maxLength: 100,
  description: 'Phone number with country code, or a chat id (`@s.whatsapp.net`, `@g.us`, `@lid`).',
  example: '15551234567',
} as const
