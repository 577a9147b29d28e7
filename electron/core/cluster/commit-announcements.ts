import type { CommitAnnouncements } from '../contract/coordination'
import type { Notifications } from '../store/postgres/notifications'

/** Commits announced within this long share one notification. */
const ANNOUNCE_MS = 20

/**
 * Every node (this one too) hears of committed events through `linkdesk_events`: one notification per 20 ms at
 * most, naming the node that committed them.
 */
export function commitAnnouncements(notifications: Notifications, nodeId: string): CommitAnnouncements {
  let announcing: NodeJS.Timeout | undefined
  return {
    announce: () => {
      if (announcing) return
      announcing = setTimeout(() => {
        announcing = undefined
        void notifications.notify('linkdesk_events', nodeId)
      }, ANNOUNCE_MS)
      announcing.unref()
    },
    onAnnounced: (listener) => notifications.on('linkdesk_events', listener),
  }
}
