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
