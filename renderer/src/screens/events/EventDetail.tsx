import { useMemo, useState } from 'react'
import type { DeliveryAttemptView, DeliveryPage, LoggedEventView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useFeedSnapshot } from '../../app/feed-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { hrefWithQuery } from '../../app/routes'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNotice } from '../../components/ErrorNotice'
import { AttemptList } from './AttemptList'
import { MessageActions } from './MessageActions'
import { deliveriesByWebhook, webhookDeliveryInWords } from './delivery-summary'
import './EventDetail.css'

const NO_ATTEMPTS: DeliveryAttemptView[] = []

/** One event: its payload as the webhook receives it, every delivery attempt, and redelivery. */
export function EventDetail({ event }: { event: LoggedEventView }) {
  const api = useApi()
  const { deliveries } = useFeedSnapshot()
  const [status, setStatus] = useState<string | null>(null)
  const { error, run } = useAction()
  const id = event.event_id
  const [page] = useOperation(
    (client) => client.call<DeliveryPage>('deliveries', { event_id: id, limit: 100 }),
    id,
  )
  // Without the logged attempts (say, the read failed), the live ones still show.
  const logged = page.status === 'ready' ? page.data.deliveries : NO_ATTEMPTS
  const attempts = useMemo(() => {
    const byId = new Map<string, DeliveryAttemptView>()
    for (const attempt of logged) byId.set(attempt.delivery_id, attempt)
    for (const attempt of deliveries) if (attempt.event_id === id) byId.set(attempt.delivery_id, attempt)
    return [...byId.values()].sort((a, b) => a.delivery_id.localeCompare(b.delivery_id))
  }, [logged, deliveries, id])

  const redeliver = async () => {
    const answer = await run(() =>
      api.call<{ message: string }>('redeliver', { instance_id: event.instance_id, event_id: id }),
    )
    if (answer) setStatus(answer.message)
  }
  const { delivery, ...envelope } = event
  const payload = JSON.stringify(envelope, null, 2)
  const reply = replyHref(event)
  return (
    <section className="event-detail" aria-labelledby="event-detail-title">
      <h2 id="event-detail-title">
        {event.event} <code>{id}</code>
      </h2>
      <DeliverySummary delivery={delivery} attempts={attempts} />
      <div className="actions">
        <button type="button" onClick={() => void redeliver()}>
          Redeliver
        </button>
        <CopyButton text={payload} label="payload" />
        {reply ? (
          <a className="button-link" href={reply}>
            Reply in the composer
          </a>
        ) : null}
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not redelivered" /> : null}
      <MessageActions event={event} />
      <h3>Attempts</h3>
      <AttemptList attempts={attempts} />
      <h3>Payload</h3>
      <pre className="payload" tabIndex={0} aria-label="Event payload">
        {payload}
      </pre>
    </section>
  )
}

/** The composer begun as a reply to a message event's message, in its chat; undefined for other events. */
function replyHref(event: LoggedEventView): string | undefined {
  if (event.event !== 'message.received' && event.event !== 'message.sent') return undefined
  const { id, chat } = event.data as { id?: unknown; chat?: unknown }
  if (typeof id !== 'string' || typeof chat !== 'string') return undefined
  return hrefWithQuery('composer', { instance_id: event.instance_id, number: chat, reply_to: id })
}

/**
 * Where the event stands with each webhook, from its attempts (the log's summary is only the instance's own
 * webhook's, as it was when the event was read); before any attempt, the log's summary.
 */
function DeliverySummary({
  delivery,
  attempts,
}: {
  delivery: LoggedEventView['delivery']
  attempts: readonly DeliveryAttemptView[]
}) {
  const byWebhook = deliveriesByWebhook(attempts)
  if (byWebhook.length === 0)
    return <p>Delivery: {delivery.status === 'skipped' ? 'not sent (webhook off)' : 'no attempt yet'}</p>
  return (
    <ul className="delivery-summary" aria-label="Delivery per webhook">
      {byWebhook.map((item) => (
        <li key={item.webhookId ?? 'own'}>
          <span className="attempt-url">{item.url}</span>: <strong>{webhookDeliveryInWords(item)}</strong>
        </li>
      ))}
    </ul>
  )
}
