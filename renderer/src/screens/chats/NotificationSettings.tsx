import { useId, useState } from 'react'
import { setNotificationPrefs, useNotificationPrefs } from './notification-prefs'

/** Turns the desktop notifications of new messages on or off, for every instance and for this one. */
export function NotificationSettings({ instanceId }: { instanceId: string }) {
  const prefs = useNotificationPrefs()
  const allId = useId()
  const thisId = useId()
  const supported = typeof Notification !== 'undefined'
  const [permission, setPermission] = useState(supported ? Notification.permission : 'denied')
  const muted = prefs.mutedInstances.includes(instanceId)
  return (
    <fieldset className="notification-settings">
      <legend>Notifications of new messages</legend>
      <div className="field-inline">
        <input
          id={allId}
          type="checkbox"
          checked={prefs.enabled}
          onChange={(event) => setNotificationPrefs((now) => ({ ...now, enabled: event.target.checked }))}
        />
        <label htmlFor={allId}>For every instance</label>
      </div>
      <div className="field-inline">
        <input
          id={thisId}
          type="checkbox"
          checked={!muted}
          disabled={!prefs.enabled}
          onChange={(event) =>
            setNotificationPrefs((now) => ({
              ...now,
              mutedInstances: event.target.checked
                ? now.mutedInstances.filter((id) => id !== instanceId)
                : [...now.mutedInstances, instanceId],
            }))
          }
        />
        <label htmlFor={thisId}>For this instance</label>
      </div>
      {!supported ? <p className="hint">This browser shows no notifications.</p> : null}
      {supported && permission === 'default' ? (
        <button type="button" onClick={() => void Notification.requestPermission().then(setPermission)}>
          Allow notifications
        </button>
      ) : null}
      {supported && permission === 'denied' ? (
        <p className="hint">
          Notifications are blocked for this page: allow them in the browser’s site settings.
        </p>
      ) : null}
    </fieldset>
  )
}
