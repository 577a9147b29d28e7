import type { Account } from '../accounts/account'

/**
 * The Signal address name the sandbox uses for one device of an account. One name per device, whether the
 * device is addressed by phone number or by LID, since it has one identity. libsignal forbids '.' in names.
 */
export function deviceAddress(account: Account, device: number): string {
  return `${account.lid}-${device}`
}
