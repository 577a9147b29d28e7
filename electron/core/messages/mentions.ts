import { AppError } from '../errors'
import { phoneDigits } from '../contract/kinds'

/** `@<number>` in a text, as the apps write a mention (digits with country code). */
const MENTION_IN_TEXT = /(?<![\w@])@(\d{6,15})\b/g

/**
 * The chat ids a message mentions: the numbers listed in `mentions` and every `@<number>` in its text or
 * caption, once each, in order.
 */
export function mentionedChatIds(listed: readonly string[], text: string | undefined): string[] {
  const numbers = listed.map((item) => {
    const digits = phoneDigits(item)
    if (!digits) {
      throw new AppError(
        'invalid_parameter',
        `mentions: "${item}" is not a phone number (digits with country code).`,
        { details: { parameter: 'mentions' } },
      )
    }
    return digits
  })
  for (const match of text?.matchAll(MENTION_IN_TEXT) ?? []) if (match[1]) numbers.push(match[1])
  return [...new Set(numbers)].map((digits) => `${digits}@s.whatsapp.net`)
}
