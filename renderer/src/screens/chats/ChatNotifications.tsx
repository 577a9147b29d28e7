import { useLiveEvents } from '../../app/feed-context'
import type { MessageView } from '../../api/types'
import { messageSummary } from '../events/message-summary'
import { chatHref } from './chat-href'
import { notificationPrefs, notifiesFor } from './notification-prefs'

/** The page is not in front of the person: another window, another tab, or minimised. */
function unseen(): boolean {
  return document.visibilityState === 'hidden' || !document.hasFocus()
}

/**
 * Raises a desktop notification for each new message while the window is not in front (the browser's
 * Notifications API; in the desktop app, Electron's, which the window's permissions allow); clicking it
 * brings the window forward on that chat. Mounted once, for every screen.
 */
export function ChatNotifications() {
  useLiveEvents((event) => {
    if (event.event !== 'message.received' || typeof Notification === 'undefined') return
    const message = event.data as unknown as MessageView & { live?: boolean }
    if (message.from_me || message.live === false || !unseen()) return
    if (Notification.permission !== 'granted' || !notifiesFor(notificationPrefs(), event.instance_id)) return
    const from = message.push_name ?? (message.sender_phone ? `+${message.sender_phone}` : message.sender)
    const notification = new Notification(from, {
      body: messageSummary(message as unknown as Record<string, unknown>) ?? '',
      tag: `${event.instance_id}/${message.chat}`,
    })
    notification.onclick = () => {
      window.focus()
      window.location.hash = chatHref(event.instance_id, message.chat)
      notification.close()
    }
  })
  return null
}
