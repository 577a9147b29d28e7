/** The outbox queue names: an instance's own webhook is queued under the instance id. */
const WEBHOOK_QUEUE = 'webhook:'
const FOR_INSTANCE = '@'

/**
 * The queue of an added webhook: one for every instance it takes, or one per instance (in a cluster, where
 * each instance's owner delivers that instance's events, in order).
 */
export function webhookQueue(webhookId: string, instanceId?: string): string {
  return `${WEBHOOK_QUEUE}${webhookId}${instanceId === undefined ? '' : `${FOR_INSTANCE}${instanceId}`}`
}

/** What a queue name says: the added webhook it delivers to, and the instance whose events it holds, if one. */
export function queueParts(queue: string): { webhookId?: string; instanceId?: string } {
  if (!queue.startsWith(WEBHOOK_QUEUE)) return { instanceId: queue }
  const rest = queue.slice(WEBHOOK_QUEUE.length)
  const at = rest.indexOf(FOR_INSTANCE)
  return at < 0 ? { webhookId: rest } : { webhookId: rest.slice(0, at), instanceId: rest.slice(at + 1) }
}
