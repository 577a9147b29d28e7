import { AppError } from '../errors'
import { contactCardVcard } from '@linkdesk/sandbox/protocol'

/** A contact card to send: the name shown and the vCard that carries the number. */
export interface OutgoingCard {
  name: string
  vcard: string
}

const PHONE_DIGITS = /^[1-9]\d{5,14}$/

/** A phone number as people write it (`+1 (555) 123-4567`): the digits with country code, or undefined. */
function phoneDigits(value: string): string | undefined {
  const digits = value.replace(/[\s()+.-]/g, '')
  return PHONE_DIGITS.test(digits) ? digits : undefined
}

/**
 * `contacts` items, each `<name>:<number>`: split at the last colon, since a number has none and a name may.
 * A malformed item is refused naming it.
 */
export function contactCards(items: readonly string[]): OutgoingCard[] {
  return items.map((item) => {
    const colon = item.lastIndexOf(':')
    const name = colon > 0 ? item.slice(0, colon).trim() : ''
    const phone = colon > 0 ? phoneDigits(item.slice(colon + 1)) : undefined
    if (!name || !phone) {
      throw new AppError(
        'invalid_parameter',
        `contacts: "${item}" must be <name>:<number>, such as "Alice Smith:+15551234567".`,
        { details: { parameter: 'contacts' } },
      )
    }
    return { name, vcard: contactCardVcard({ name, phone }) }
  })
}

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

/** Degrees on Earth: refused with 422 when out of range, as a place that cannot exist. */
export function checkCoordinates(latitude: number, longitude: number): void {
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    throw new AppError(
      'invalid_location',
      `latitude must be from -90 to 90 and longitude from -180 to 180 (got ${latitude}, ${longitude}).`,
      { details: { parameter: Math.abs(latitude) > 90 ? 'latitude' : 'longitude' } },
    )
  }
}
