import { timingSafeEqual } from 'node:crypto'

/**
 * What a token may do, as scoped API keys work: read (lists, reads, the event log and stream), send (messages
 * and what a conversation does), manage (create, link, change and remove instances, groups, webhooks) and admin
 * (tokens, who may use an instance, the sandbox's control). `OPERATION_SCOPES` (api/scopes.ts) names each
 * operation's.
 */
export const SCOPES = ['read', 'send', 'manage', 'admin'] as const
export type Scope = (typeof SCOPES)[number]

/** Which instances a token reaches: every instance, or the ones chosen for it (and those it created). */
export const REACHES = ['all', 'chosen'] as const
export type Reach = (typeof REACHES)[number]

/**
 * Who is calling: a script with an access token (its reach and scopes as they were when the request arrived),
 * the operator's window with the UI credential or a window session (every instance, every scope), or nobody known.
 */
export type Principal =
  | { kind: 'token'; tokenId: string; reach: Reach; scopes: readonly Scope[] }
  | { kind: 'operator' }
  | { kind: 'anonymous' }

/** Whether the caller holds that scope (the operator holds them all). */
export function holdsScope(principal: Principal, scope: Scope): boolean {
  if (principal.kind === 'operator') return true
  return principal.kind === 'token' && principal.scopes.includes(scope)
}

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
