/** Each privacy category the network knows, by its wire name, with the value a new account has. */
export const PRIVACY_DEFAULTS: Readonly<Record<string, string>> = {
  last: 'all',
  online: 'all',
  profile: 'all',
  status: 'contacts',
  readreceipts: 'all',
  groupadd: 'all',
  calladd: 'all',
  messages: 'all',
}

/** What an account's privacy lets others see of it. */
export type PrivacyShown = 'last_seen' | 'online' | 'profile_photo' | 'about'

interface PrivacyHolder {
  privacyOf(category: string): string
}

/**
 * Whether others see that part of the account. `none` hides it from everyone; `contacts` and the lists
 * show it, as the simulated network keeps no address books; online follows last seen when set to
 * `match_last_seen`.
 */
export function shows(owner: PrivacyHolder, part: PrivacyShown): boolean {
  switch (part) {
    case 'last_seen':
      return owner.privacyOf('last') !== 'none'
    case 'online':
      return owner.privacyOf('online') !== 'match_last_seen' || shows(owner, 'last_seen')
    case 'profile_photo':
      return owner.privacyOf('profile') !== 'none'
    case 'about':
      return owner.privacyOf('status') !== 'none'
  }
}
