/** The window's screens, in sidebar order; the hash (`#/tokens`) names the screen. */
export const ROUTES = [
  { id: 'instances', title: 'Instances' },
  { id: 'composer', title: 'Composer' },
  { id: 'events', title: 'Events' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'tokens', title: 'Tokens' },
  { id: 'settings', title: 'Settings' },
] as const

export type RouteId = (typeof ROUTES)[number]['id']

export const DEFAULT_ROUTE: RouteId = 'instances'

/** The screen a location hash names; unknown or empty hashes show the default screen. */
export function routeFromHash(hash: string): RouteId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return ROUTES.find((route) => route.id === id)?.id ?? DEFAULT_ROUTE
}

export function hrefFor(route: RouteId): string {
  return `#/${route}`
}
