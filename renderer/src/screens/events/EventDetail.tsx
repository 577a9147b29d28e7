import { useEffect, useMemo, useState } from 'react'
import type { DeliveryAttemptView, DeliveryPage, LoggedEventView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useFeedSnapshot } from '../../app/feed-context'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { AttemptList } from './AttemptList'

/** One event: its payload as the webhook receives it, every delivery attempt, and redelivery. */
export function EventDetail({ event }: { event: LoggedEventView }) {
  const api = useApi()
  const { deliveries } = useFeedSnapshot()
  const [logged, setLogged] = useState<DeliveryAttemptView[]>([])
  const [status, setStatus] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const id = event.event_id

  useEffect(() => {
    setStatus(null)
    setError(null)
    api.call<DeliveryPage>('deliveries', { event_id: id, limit: 100 }).then(
      (page) => setLogged(page.deliveries),
      () => setLogged([]),
    )
  }, [api, id])
  const attempts = useMemo(() => {
    const byId = new Map<string, DeliveryAttemptView>()
    for (const attempt of logged) byId.set(attempt.delivery_id, attempt)
    for (const attempt of deliveries) if (attempt.event_id === id) byId.set(attempt.delivery_id, attempt)
    return [...byId.values()].sort((a, b) => a.delivery_id.localeCompare(b.delivery_id))
  }, [logged, deliveries, id])

  const redeliver = async () => {
    setError(null)
    try {
      const answer = await api.call<{ message: string }>('redeliver', {
        instance_id: event.instance_id,
        event_id: id,
      })
      setStatus(answer.message)
    } catch (failure) {
      setError(failure)
    }
  }
  const { delivery, ...envelope } = event
  const payload = JSON.stringify(envelope, null, 2)
  return (
    <section className="event-detail" aria-labelledby="event-detail-title">
      <h2 id="event-detail-title">
        {event.event} <code>{id}</code>
      </h2>
      <p>
        Delivery: <strong>{delivery.status}</strong>
        {delivery.attempts ? `, ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}` : ''}
        {delivery.last_error ? ` — ${delivery.last_error}` : ''}
      </p>
      <div className="actions">
        <button type="button" onClick={() => void redeliver()}>
          Redeliver
        </button>
        <CopyButton text={payload} label="payload" />
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not redelivered" /> : null}
      <h3>Attempts</h3>
      <AttemptList attempts={attempts} />
      <h3>Payload</h3>
      <pre className="payload" tabIndex={0} aria-label="Event payload">
        {payload}
      </pre>
    </section>
  )
}
