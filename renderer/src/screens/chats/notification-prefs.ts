import { useSyncExternalStore } from 'react'

/** Whether new messages raise a desktop notification: for every instance, and the instances turned off. */
export interface NotificationPrefs {
  enabled: boolean
  mutedInstances: string[]
}

const KEY = 'linkdesk.notifications'
const DEFAULT: NotificationPrefs = { enabled: true, mutedInstances: [] }
const listeners = new Set<() => void>()
let cached: NotificationPrefs | null = null

function read(): NotificationPrefs {
  if (cached) return cached
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<NotificationPrefs> | null
    cached = {
      enabled: kept?.enabled !== false,
      mutedInstances: Array.isArray(kept?.mutedInstances)
        ? kept.mutedInstances.filter((id) => typeof id === 'string')
        : [],
    }
  } catch {
    cached = DEFAULT
  }
  return cached
}

/** The window's notification choices, kept in this browser (or the desktop app's window). */
export function notificationPrefs(): NotificationPrefs {
  return read()
}

export function setNotificationPrefs(change: (now: NotificationPrefs) => NotificationPrefs): void {
  cached = change(read())
  localStorage.setItem(KEY, JSON.stringify(cached))
  for (const listener of listeners) listener()
}

export function useNotificationPrefs(): NotificationPrefs {
  return useSyncExternalStore((listener) => {
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, read)
}

/** Whether a new message of this instance raises a notification, by the person's choices. */
export function notifiesFor(prefs: NotificationPrefs, instanceId: string): boolean {
  return prefs.enabled && !prefs.mutedInstances.includes(instanceId)
}
