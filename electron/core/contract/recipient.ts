import { AppError } from '../errors'

/** Where a message goes: a phone number still to be checked on the network, or a chat id used as given. */
export type Recipient =
  | { kind: 'phone'; phone: string; jid: string }
  | { kind: 'group'; jid: string }
  | { kind: 'lid'; jid: string }

const PHONE_SERVER = 's.whatsapp.net'
const SEPARATORS = /[\s\-().]/g
/** E.164 numbers have at most 15 digits; the shortest real ones (with country code) have 7. */
const PHONE_DIGITS = /^[1-9]\d{6,14}$/

function invalid(reason: string): AppError {
  return new AppError('invalid_parameter', `number ${reason}`, { details: { parameter: 'number' } })
}

function phoneRecipient(digits: string): Recipient {
  if (!PHONE_DIGITS.test(digits)) {
    throw invalid('must be a phone number with country code (7 to 15 digits, such as 15551234567).')
  }
  return { kind: 'phone', phone: digits, jid: `${digits}@${PHONE_SERVER}` }
}

/**
 * Reads the `number` parameter: digits with country code (tolerating `+`, spaces, dashes, dots and
 * parentheses), or a chat id ending in `@s.whatsapp.net` (or the legacy `@c.us`), `@g.us` or `@lid`.
 */
export function parseRecipient(input: string): Recipient {
  const value = input.trim()
  const at = value.lastIndexOf('@')
  if (at < 0) {
    if (!/^\+?[\d\s\-().]+$/.test(value)) {
      throw invalid('must be a phone number with country code, or a chat id such as 120363000000000000@g.us.')
    }
    return phoneRecipient(value.replace(/^\+/, '').replace(SEPARATORS, ''))
  }
  const user = value.slice(0, at)
  const server = value.slice(at + 1).toLowerCase()
  switch (server) {
    case 's.whatsapp.net':
    case 'c.us':
      // A device-qualified id (`<phone>:<device>@s.whatsapp.net`) addresses the account: drop the device.
      return phoneRecipient(user.replace(/:\d+$/, ''))
    case 'g.us':
      if (!/^\d{5,30}(-\d{5,15})?$/.test(user)) throw invalid('is not a valid group id (<digits>@g.us).')
      return { kind: 'group', jid: `${user}@g.us` }
    case 'lid':
      if (!/^\d{5,30}(:\d+)?$/.test(user)) throw invalid('is not a valid LID (<digits>@lid).')
      return { kind: 'lid', jid: `${user.replace(/:\d+$/, '')}@lid` }
    default:
      throw invalid('must end in @s.whatsapp.net, @g.us or @lid when it is a chat id.')
  }
}
