import { useState } from 'react'
import type { InstanceSummary } from '../../api/types'
import { useApi } from '../../app/api-context'
import { reconnectable } from './instance-overview'

/** Reconnects at a time: enough to be quick, few enough not to connect hundreds of accounts at once. */
const AT_ONCE = 4

type Run = { total: number; done: number; failed: string[] } | null

/** "Reconnect every disconnected one" and "Reconnect the chosen ones", with the existing reconnect operation. */
export function BulkReconnect({
  instances,
  selected,
  onDone,
}: {
  instances: readonly InstanceSummary[]
  selected: readonly InstanceSummary[]
  onDone(): void
}) {
  const api = useApi()
  const [run, setRun] = useState<Run>(null)
  const disconnected = instances.filter(reconnectable)
  const chosen = selected.filter(reconnectable)
  const busy = run !== null && run.done < run.total

  const reconnect = async (targets: readonly InstanceSummary[]) => {
    const state = { total: targets.length, done: 0, failed: [] as string[] }
    setRun({ ...state })
    const queue = [...targets]
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        try {
          await api.call('reconnect', { instance_id: next.instance_id })
        } catch {
          state.failed.push(next.name ?? next.instance_id)
        }
        state.done += 1
        setRun({ ...state, failed: [...state.failed] })
      }
    }
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, targets.length) }, worker))
    onDone()
  }

  return (
    <div className="bulk-actions">
      <button
        type="button"
        disabled={busy || disconnected.length === 0}
        onClick={() => void reconnect(disconnected)}
      >
        Reconnect every disconnected one ({disconnected.length})
      </button>
      <button type="button" disabled={busy || chosen.length === 0} onClick={() => void reconnect(chosen)}>
        Reconnect the chosen ones ({chosen.length})
      </button>
      <span role="status" className="muted">
        {run
          ? `Reconnected ${run.done - run.failed.length} of ${run.total}${
              run.failed.length ? `; failed: ${run.failed.join(', ')}` : ''
            }${busy ? '…' : '.'}`
          : ''}
      </span>
    </div>
  )
}
