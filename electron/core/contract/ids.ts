import type { WaAccount } from './network'

/** The user part of a user JID, without device: a phone number for `@s.whatsapp.net`. */
export function userOf(jid: string): string {
  return (jid.split('@')[0] ?? '').split(':')[0] ?? ''
}

/** Whether a participant is this account (by phone number or LID). */
export function isOwn(
  participant: { phone: string | null; lid: string | null },
  account: WaAccount,
): boolean {
  return (
    participant.phone === account.number ||
    (participant.lid !== null && account.lid !== null && userOf(participant.lid) === userOf(account.lid))
  )
}
