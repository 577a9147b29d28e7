import type { InstanceSummary } from '../../api/types'

/** What an operator asks of an instance at a glance: the states grouped by what to do about them. */
export const STANDINGS = ['connected', 'connecting', 'disconnected', 'scan', 'replaced'] as const
export type Standing = (typeof STANDINGS)[number]

const STANDING_WORDS: Record<Standing, { one: string; many: string; filter: string }> = {
  connected: { one: 'connected', many: 'connected', filter: 'Connected' },
  connecting: { one: 'connecting', many: 'connecting', filter: 'Connecting' },
  disconnected: { one: 'disconnected', many: 'disconnected', filter: 'Disconnected' },
  replaced: { one: 'replaced', many: 'replaced', filter: 'Replaced by another client' },
  scan: { one: 'needs a scan', many: 'need a scan', filter: 'Needs a scan (not linked)' },
}

/** Where an instance stands: taken over by another client, waiting for a link, or its state. */
export function standingOf(instance: InstanceSummary): Standing {
  if (instance.cause === 'connection_replaced') return 'replaced'
  switch (instance.state) {
    case 'connected':
      return 'connected'
    case 'connecting':
      return 'connecting'
    case 'disconnected':
      return 'disconnected'
    default:
      return 'scan'
  }
}

/** The filter option's words for a standing. */
export function standingInWords(standing: Standing): string {
  return STANDING_WORDS[standing].filter
}

/** How many instances stand where, in words: "48 connected · 2 need a scan · 1 replaced" (none: omitted). */
export function countsInWords(instances: readonly InstanceSummary[]): string {
  const counts = new Map<Standing, number>()
  for (const instance of instances) {
    const standing = standingOf(instance)
    counts.set(standing, (counts.get(standing) ?? 0) + 1)
  }
  return STANDINGS.flatMap((standing) => {
    const count = counts.get(standing) ?? 0
    if (count === 0) return []
    const words = STANDING_WORDS[standing]
    return [`${count} ${count === 1 ? words.one : words.many}`]
  }).join(' · ')
}

/** Whether an instance matches a search: its name, its account's name or number, or its id. */
export function matchesSearch(instance: InstanceSummary, search: string): boolean {
  const wanted = search.trim().toLowerCase()
  if (wanted === '') return true
  const digits = wanted.replace(/[\s\-+()]/g, '')
  const account = instance.account
  return (
    (instance.name ?? '').toLowerCase().includes(wanted) ||
    instance.instance_id.toLowerCase().includes(wanted) ||
    (account?.name ?? '').toLowerCase().includes(wanted) ||
    (/^\d+$/.test(digits) && (account?.number ?? '').includes(digits))
  )
}

export const SORTS = {
  name: 'Name',
  state: 'State',
  newest: 'Newest first',
  oldest: 'Oldest first',
} as const
export type Sort = keyof typeof SORTS

const byName = (instance: InstanceSummary) =>
  (instance.name ?? instance.account?.name ?? instance.account?.number ?? '').toLowerCase()

/** The instances matching the search and the standing (all: null), in the chosen order. */
export function arranged(
  instances: readonly InstanceSummary[],
  view: { search: string; standing: Standing | null; sort: Sort },
): InstanceSummary[] {
  const chosen = instances.filter(
    (instance) =>
      (view.standing === null || standingOf(instance) === view.standing) &&
      matchesSearch(instance, view.search),
  )
  const compare: Record<Sort, (a: InstanceSummary, b: InstanceSummary) => number> = {
    // Unnamed instances last, so the named ones an operator looks for come first.
    name: (a, b) =>
      (byName(a) === '' ? 1 : 0) - (byName(b) === '' ? 1 : 0) || byName(a).localeCompare(byName(b)),
    state: (a, b) => STANDINGS.indexOf(standingOf(a)) - STANDINGS.indexOf(standingOf(b)),
    newest: (a, b) => (b.created_at ?? 0) - (a.created_at ?? 0),
    oldest: (a, b) => (a.created_at ?? 0) - (b.created_at ?? 0),
  }
  return chosen.sort((a, b) => compare[view.sort](a, b) || a.instance_id.localeCompare(b.instance_id))
}

/** The instances a bulk reconnect takes: linked, and disconnected (replaced ones included). */
export function reconnectable(instance: InstanceSummary): boolean {
  return instance.linked && instance.state === 'disconnected'
}
