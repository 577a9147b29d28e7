import { SandboxError } from '../errors'

export const PHONE = /^[1-9]\d{5,14}$/

/** A phone number: digits with country code, no plus sign. */
export function assertPhone(phone: unknown, field = 'phone'): string {
  if (phone === undefined || phone === null || phone === '')
    throw new SandboxError('missing_parameter', `${field} is required.`)
  if (typeof phone !== 'string' || !PHONE.test(phone)) {
    throw new SandboxError(
      'invalid_parameter',
      `${field} must be a phone number: digits with country code, e.g. 15551234567.`,
    )
  }
  return phone
}
