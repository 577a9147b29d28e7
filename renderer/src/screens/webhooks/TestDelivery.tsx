import { useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useFeedSnapshot } from '../../app/feed-context'
import { ErrorNotice } from '../../components/ErrorNotice'
import { AttemptList } from '../events/AttemptList'

/** Sends a webhook.test event and shows its delivery attempts as they happen. */
export function TestDelivery({ instanceId, enabled }: { instanceId: string; enabled: boolean }) {
  const api = useApi()
  const { deliveries } = useFeedSnapshot()
  const [eventId, setEventId] = useState<string | null>(null)
  const { error, run } = useAction()
  const send = async () => {
    setEventId(null)
    const sent = await run(() =>
      api.call<{ event_id: string }>('send_test_event', { instance_id: instanceId }),
    )
    if (sent) setEventId(sent.event_id)
  }
  const attempts = eventId ? deliveries.filter((attempt) => attempt.event_id === eventId) : []
  return (
    <section className="stack" aria-labelledby="test-title">
      <h2 id="test-title">Test the receiver</h2>
      <div className="actions">
        <button type="button" onClick={() => void send()} disabled={!enabled}>
          Send a test event
        </button>
      </div>
      {!enabled ? <p className="hint">Save a URL with delivery switched on first.</p> : null}
      {error ? <ErrorNotice error={error} context="No test event" /> : null}
      {eventId ? (
        <>
          <p role="status">
            Test event <code>{eventId}</code> queued: attempts appear below as they happen.
          </p>
          <AttemptList attempts={attempts} />
        </>
      ) : null}
    </section>
  )
}
