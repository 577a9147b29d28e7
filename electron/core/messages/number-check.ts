import { AppError } from '../errors'
import type { WaConnection } from '../contract/network'

/** One number as the network knows it. */
export interface NumberCheck {
  /** The number as asked, digits only. */
  number: string
  exists: boolean
  /** The chat id to write to (`<number>@s.whatsapp.net`), when it exists. */
  chat_id: string | null
  /** Its LID (`<digits>@lid`), when the network gave it. */
  lid: string | null
}

const DIGITS = /^[1-9]\d{5,14}$/

/** The digits of a number as people write it, or a 400 naming it. */
function digitsOf(value: string): string {
  const digits = value.replace(/[\s()+.-]/g, '')
  if (!DIGITS.test(digits)) {
    throw new AppError(
      'invalid_parameter',
      `numbers: "${value}" is not a phone number (digits with country code).`,
      {
        details: { parameter: 'numbers' },
      },
    )
  }
  return digits
}

/** Which numbers are on the network, with their chat id and LID; nothing is sent to them. */
export async function checkNumbers(
  connection: WaConnection,
  numbers: readonly string[],
): Promise<NumberCheck[]> {
  const digits = [...new Set(numbers.map(digitsOf))]
  const found = await connection.lookup(digits)
  return Promise.all(
    found.map(async ({ number, jid }) => ({
      number,
      exists: jid !== null,
      chat_id: jid,
      lid: jid ? await connection.lidOf(jid) : null,
    })),
  )
}
