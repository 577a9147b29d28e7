import { type FormEvent, useState } from 'react'
import type { InstanceAnswer, InstanceSummary } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

const BEHAVIOURS = [
  ['ignore_groups', 'Ignore groups', 'Nothing from groups is surfaced or kept.'],
  ['auto_read', 'Read incoming messages', 'Each incoming message is marked read once kept (blue ticks).'],
  ['always_online', 'Always online', 'Shows online while connected; the phone then gets no notifications.'],
  ['ignore_status', 'Ignore status updates', 'Contacts’ status updates are not received (on by default).'],
] as const

type Behaviour = (typeof BEHAVIOURS)[number][0]

/** The instance's name, behaviours and proxy, changed as update_instance does. */
export function InstanceSettingsForm({ instance, onSaved }: { instance: InstanceSummary; onSaved(): void }) {
  const api = useApi()
  const [name, setName] = useState(instance.name ?? '')
  const [behaviours, setBehaviours] = useState<Record<Behaviour, boolean>>({ ...instance.behaviours })
  const [proxy, setProxy] = useState('')
  const [rejectCalls, setRejectCalls] = useState(instance.calls.reject)
  const [callMessage, setCallMessage] = useState(instance.calls.message ?? '')
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useAction()
  const save = async (event: FormEvent, params: Record<string, unknown>) => {
    event.preventDefault()
    setSaved(false)
    const answer = await run(async () => {
      const updated = await api.call<InstanceAnswer>('update_instance', {
        instance_id: instance.instance_id,
        ...params,
      })
      const calls = {
        reject: rejectCalls,
        message: rejectCalls && callMessage.trim() ? callMessage.trim() : null,
      }
      if (calls.reject !== instance.calls.reject || calls.message !== instance.calls.message) {
        await api.call('set_call_rejection', {
          instance_id: instance.instance_id,
          enable: calls.reject,
          ...(calls.message ? { message: calls.message } : {}),
        })
      }
      return updated
    }, 'Saving…')
    if (!answer) return
    setSaved(true)
    setProxy('')
    onSaved()
  }
  return (
    <form
      className="stack"
      aria-labelledby="instance-settings-title"
      onSubmit={(event) =>
        void save(event, {
          ...(name.trim() && name.trim() !== instance.name ? { name: name.trim() } : {}),
          ...behaviours,
          ...(proxy.trim() ? { proxy: proxy.trim() } : {}),
        })
      }
    >
      <h2 id="instance-settings-title">Settings</h2>
      <div className="field">
        <label htmlFor="instance-name">Name</label>
        <input
          id="instance-name"
          value={name}
          maxLength={100}
          placeholder="e.g. Sales"
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      {BEHAVIOURS.map(([key, label, hint]) => (
        <div className="field-inline" key={key}>
          <input
            id={`behaviour-${key}`}
            type="checkbox"
            role="switch"
            checked={behaviours[key]}
            aria-describedby={`behaviour-${key}-hint`}
            onChange={(event) => setBehaviours((current) => ({ ...current, [key]: event.target.checked }))}
          />
          <label htmlFor={`behaviour-${key}`}>{label}</label>
          <span id={`behaviour-${key}-hint`} className="hint">
            {hint}
          </span>
        </div>
      ))}
      <div className="field-inline">
        <input
          id="instance-reject-calls"
          type="checkbox"
          role="switch"
          checked={rejectCalls}
          onChange={(event) => setRejectCalls(event.target.checked)}
        />
        <label htmlFor="instance-reject-calls">Reject calls</label>
        <span className="hint">Each call is declined as it rings (it still arrives as call.received).</span>
      </div>
      {rejectCalls ? (
        <div className="field">
          <label htmlFor="instance-call-message">Text to the caller (optional)</label>
          <input
            id="instance-call-message"
            value={callMessage}
            maxLength={1000}
            placeholder="Sorry, no calls: please write."
            onChange={(event) => setCallMessage(event.target.value)}
          />
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="instance-proxy">Proxy</label>
        <input
          id="instance-proxy"
          value={proxy}
          spellCheck={false}
          placeholder={instance.proxy ?? 'socks5://user:password@203.0.113.7:1080'}
          aria-describedby="instance-proxy-hint"
          onChange={(event) => setProxy(event.target.value)}
        />
        <p id="instance-proxy-hint" className="hint">
          {instance.proxy ? `Now through ${instance.proxy}. ` : 'Now direct. '}
          HTTP(S) or SOCKS; the connection and media go through it. Checked before it is kept.
        </p>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          {busy ?? 'Save settings'}
        </button>
        {instance.proxy ? (
          <button
            type="button"
            disabled={busy !== null}
            onClick={(event) => void save(event, { proxy: 'none' })}
          >
            Go direct
          </button>
        ) : null}
      </div>
      {saved ? <p role="status">Settings saved.</p> : null}
      {error ? <ErrorNotice error={error} context="Settings not changed" /> : null}
    </form>
  )
}
