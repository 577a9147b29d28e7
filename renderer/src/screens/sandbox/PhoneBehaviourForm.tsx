import { type FormEvent, useEffect, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ErrorNotice } from '../../components/ErrorNotice'

/** How a sandbox phone behaves, as its control API keeps it. */
interface PhoneBehaviour {
  reads: 'instantly' | 'after' | 'never'
  read_after_ms: number
  types_before_reply: boolean
  online: 'always' | 'never' | 'while_active'
}

/**
 * How the contact's phone behaves, as a person holding it would: when it reads what it gets (blue ticks for
 * the sender), whether it types before its echo, when it shows online. By default it never reads by itself.
 */
export function PhoneBehaviourForm({ phone }: { phone: string }) {
  const api = useApi()
  const path = `sandbox/accounts/${encodeURIComponent(phone)}/behaviour`
  const [kept, reload] = useOperation(
    async (client) => (await client.request<{ behaviour: PhoneBehaviour }>('GET', path)).behaviour,
    path,
  )
  const { busy, error, run } = useAction()
  const [draft, setDraft] = useState<PhoneBehaviour | null>(null)
  const [status, setStatus] = useState<string | null>(null)
  useEffect(() => {
    if (kept.status === 'ready') setDraft(kept.data)
  }, [kept])

  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (!draft) return
    setStatus(null)
    const saved = await run(() => api.request('POST', path, { json: { ...draft } }), 'behaviour')
    if (saved === undefined) return
    setStatus(
      `+${phone}'s phone now reads ${draft.reads === 'after' ? `after ${draft.read_after_ms / 1000} s` : draft.reads}.`,
    )
    await reload()
  }

  return (
    <section className="stack" aria-labelledby="behaviour-title">
      <h3 id="behaviour-title">How this phone behaves</h3>
      {kept.status === 'failed' ? <ErrorNotice error={kept.error} context="Phone behaviour" /> : null}
      {draft ? (
        <form className="stack" onSubmit={(event) => void save(event)} aria-label="Phone behaviour">
          <div className="field-inline">
            <label htmlFor="behaviour-reads">Reads what it gets</label>
            <select
              id="behaviour-reads"
              value={draft.reads}
              onChange={(event) =>
                setDraft({ ...draft, reads: event.target.value as PhoneBehaviour['reads'] })
              }
            >
              <option value="never">never (a linked device's read gives the blue ticks)</option>
              <option value="instantly">instantly</option>
              <option value="after">after a delay</option>
            </select>
            <label htmlFor="behaviour-delay">delay (seconds)</label>
            <input
              id="behaviour-delay"
              type="number"
              min="0"
              max="600"
              step="any"
              disabled={draft.reads !== 'after'}
              value={draft.read_after_ms / 1000}
              onChange={(event) =>
                setDraft({ ...draft, read_after_ms: Math.round(Number(event.target.value) * 1000) })
              }
            />
          </div>
          <div className="field-inline">
            <input
              id="behaviour-types"
              type="checkbox"
              checked={draft.types_before_reply}
              onChange={(event) => setDraft({ ...draft, types_before_reply: event.target.checked })}
            />
            <label htmlFor="behaviour-types">Types before its echo reply</label>
          </div>
          <div className="field-inline">
            <label htmlFor="behaviour-online">Online</label>
            <select
              id="behaviour-online"
              value={draft.online}
              onChange={(event) =>
                setDraft({ ...draft, online: event.target.value as PhoneBehaviour['online'] })
              }
            >
              <option value="never">never</option>
              <option value="always">always</option>
              <option value="while_active">while it sends or reads</option>
            </select>
          </div>
          <div className="actions">
            <button type="submit" disabled={busy !== null}>
              Save behaviour
            </button>
          </div>
        </form>
      ) : null}
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Behaviour not changed" /> : null}
    </section>
  )
}
