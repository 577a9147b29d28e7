import type { DeliveryAttemptView, LoggedEventView } from '../../api/types'

export interface LogFilter {
  instanceId: string
  event: string
  /** A delivery status (events) or an attempt outcome (deliveries); empty for any. */
  outcome: string
  search: string
}

export const NO_FILTER: LogFilter = { instanceId: '', event: '', outcome: '', search: '' }

const searchable = new WeakMap<object, string>()

/** The text a search looks in, computed once per entry: ids, names and the payload. */
function textOf(entry: object): string {
  let text = searchable.get(entry)
  if (text === undefined) {
    text = JSON.stringify(entry).toLowerCase()
    searchable.set(entry, text)
  }
  return text
}

function matchesSearch(entry: object, search: string): boolean {
  return search === '' || textOf(entry).includes(search.toLowerCase())
}

/** The events that pass the filter, newest first. */
export function filterEvents(events: readonly LoggedEventView[], filter: LogFilter): LoggedEventView[] {
  const found: LoggedEventView[] = []
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!
    if (filter.instanceId && event.instance_id !== filter.instanceId) continue
    if (filter.event && event.event !== filter.event) continue
    if (filter.outcome && event.delivery.status !== filter.outcome) continue
    if (!matchesSearch(event, filter.search)) continue
    found.push(event)
  }
  return found
}

/** The attempts that pass the filter, newest first. */
export function filterAttempts(
  attempts: readonly DeliveryAttemptView[],
  filter: LogFilter,
): DeliveryAttemptView[] {
  const found: DeliveryAttemptView[] = []
  for (let index = attempts.length - 1; index >= 0; index -= 1) {
    const attempt = attempts[index]!
    if (filter.instanceId && attempt.instance_id !== filter.instanceId) continue
    if (filter.event && attempt.event !== filter.event) continue
    if (filter.outcome && attempt.outcome !== filter.outcome) continue
    if (!matchesSearch(attempt, filter.search)) continue
    found.push(attempt)
  }
  return found
}
