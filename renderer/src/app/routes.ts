/** The window's screens, in sidebar order; the hash (`#/tokens`) names the screen. */
export const ROUTES = [
  { id: 'instances', title: 'Instances' },
  { id: 'chats', title: 'Chats' },
  { id: 'composer', title: 'Composer' },
  { id: 'events', title: 'Events' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'sandbox', title: 'Sandbox' },
  { id: 'tokens', title: 'Tokens' },
  { id: 'settings', title: 'Settings' },
] as const

export type RouteId = (typeof ROUTES)[number]['id']

export const DEFAULT_ROUTE: RouteId = 'instances'

/** Screens that exist only when the server runs the sandbox. */
export const SANDBOX_ONLY: ReadonlySet<RouteId> = new Set(['sandbox'])

/** The screen a location hash names; unknown or empty hashes show the default screen. */
export function routeFromHash(hash: string): RouteId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return ROUTES.find((route) => route.id === id)?.id ?? DEFAULT_ROUTE
}

/** What follows the screen in the hash: `#/instances/ABC/link` → ['ABC', 'link']. */
export function subpathFromHash(hash: string): string[] {
  return hash
    .replace(/^#\/?/, '')
    .split('?')[0]!
    .split('/')
    .slice(1)
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part))
}

export function hrefFor(route: RouteId, ...subpath: string[]): string {
  return `#/${[route, ...subpath.map((part) => encodeURIComponent(part))].join('/')}`
}

/** The query after the screen and its segments: `#/composer?number=…` → number=…. */
export function queryFromHash(hash: string): URLSearchParams {
  const at = hash.indexOf('?')
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1))
}

/** A screen's address with a query, e.g. the composer begun as a reply. */
export function hrefWithQuery(route: RouteId, query: Record<string, string>): string {
  return `${hrefFor(route)}?${new URLSearchParams(query).toString()}`
}
