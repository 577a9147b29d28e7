import { type FormEvent, useEffect, useState } from 'react'
import type { DeliveryAttemptView } from '../../api/types'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { useOperation } from '../../app/use-operation'
import { ConfirmTargetRemoval, FilterScopeAndSubmit } from './TargetFormParts'
import { ErrorNotice } from '../../components/ErrorNotice'

/** A broker sink as `sinks` answers it (its address without its password). */
interface SinkView {
  sink_id: string
  instance_id: string | null
  kind: 'rabbitmq' | 'nats'
  url: string
  exchange?: string
  stream?: string
  enable: boolean
  events: string[]
  batch_size: number
}

/** A sink and its latest publish attempt (none yet: null). */
interface SinkRow {
  sink: SinkView
  last: DeliveryAttemptView | null
}

const KIND_NAMES = { rabbitmq: 'RabbitMQ', nats: 'NATS JetStream' } as const
const PLACEHOLDERS = {
  rabbitmq: 'amqp://user:password@rabbit.internal:5672',
  nats: 'nats://user:password@nats.internal:4222',
} as const
/** How often the sinks' health is read again while the screen is open. */
const HEALTH_REFRESH_MS = 5_000

function filterOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean)
}

function where(sink: SinkView): string {
  return sink.kind === 'rabbitmq' ? `exchange ${sink.exchange ?? ''}` : `stream ${sink.stream ?? ''}`
}

/** What the latest attempt says of a sink: publishing, retrying with the broker's error, or nothing yet. */
function Health({ last }: { last: DeliveryAttemptView | null }) {
  if (!last) return <span className="muted">No event published yet</span>
  const at = new Date(last.attempted_at).toLocaleTimeString()
  if (last.outcome === 'delivered')
    return (
      <span>
        Last publish confirmed at {at} ({last.latency_ms} ms)
      </span>
    )
  return (
    <span role="status">
      Last publish {last.outcome === 'retrying' ? 'failed, retrying' : 'failed for good'} at {at}:{' '}
      <code>{last.error}</code>
    </span>
  )
}

/**
 * Broker sinks beside the webhooks: the instance's and the global ones (RabbitMQ, NATS), each with its
 * filter, health (its latest publish) and removal; a form adds one.
 */
export function BrokerSinks({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [lists, reload] = useOperation(async (client) => {
    const rows = async (params: Record<string, unknown>): Promise<SinkRow[]> => {
      const { sinks } = await client.call<{ sinks: SinkView[] }>('sinks', params)
      return Promise.all(
        sinks.map(async (sink) => {
          const { deliveries } = await client.call<{ deliveries: DeliveryAttemptView[] }>('deliveries', {
            webhook_id: sink.sink_id,
            limit: 1,
          })
          return { sink, last: deliveries[0] ?? null }
        }),
      )
    }
    return {
      instance: instanceId ? await rows({ instance_id: instanceId }) : [],
      global: await rows({}),
    }
  }, `broker-sinks/${instanceId}`)
  useEffect(() => {
    const timer = setInterval(() => void reload(), HEALTH_REFRESH_MS)
    return () => clearInterval(timer)
  }, [reload])
  const [kind, setKind] = useState<SinkView['kind']>('rabbitmq')
  const [url, setUrl] = useState('')
  const [target, setTarget] = useState('')
  const [events, setEvents] = useState('')
  const [global, setGlobal] = useState(false)
  const [removing, setRemoving] = useState<SinkView | null>(null)
  const { error, run } = useAction()

  const add = async (event: FormEvent) => {
    event.preventDefault()
    const added = await run(() =>
      api.call('add_sink', {
        ...(global ? {} : { instance_id: instanceId }),
        kind,
        url,
        ...(target.trim() ? { [kind === 'rabbitmq' ? 'exchange' : 'stream']: target.trim() } : {}),
        ...(filterOf(events).length > 0 ? { events: filterOf(events) } : {}),
      }),
    )
    if (!added) return
    setUrl('')
    setTarget('')
    setEvents('')
    void reload()
  }
  const remove = async (sink: SinkView) => {
    setRemoving(null)
    await run(() => api.call('remove_sink', { sink_id: sink.sink_id }))
    void reload()
  }
  const table = (label: string, rows: SinkRow[]) => (
    <ul aria-label={label} className="stack">
      {rows.map(({ sink, last }) => (
        <li key={sink.sink_id}>
          <strong>{KIND_NAMES[sink.kind]}</strong> <code>{sink.url}</code>{' '}
          <span className="muted">
            {where(sink)} · {sink.events.length ? sink.events.join(', ') : 'every event'}
          </span>
          <div>
            <Health last={last} />
          </div>
          <div className="actions">
            <button
              type="button"
              className="danger"
              onClick={() => setRemoving(sink)}
              aria-label={`Remove the ${KIND_NAMES[sink.kind]} sink ${sink.url}`}
            >
              Remove
            </button>
          </div>
        </li>
      ))}
    </ul>
  )
  const ready = lists.status === 'ready' ? lists.data : { instance: [], global: [] }
  return (
    <section aria-labelledby="broker-sinks-title">
      <h2 id="broker-sinks-title">Broker sinks</h2>
      <p className="hint">
        Events published to RabbitMQ (a topic exchange, routing key <code>instance.event</code>, confirmed) or
        NATS JetStream (subject <code>linkdesk.instance.event</code>, acknowledged), from the same outbox as
        the webhooks: in order, with their event ids, kept while the broker is down.
      </p>
      {lists.status === 'failed' ? <ErrorNotice error={lists.error} context="Sinks" /> : null}
      <h3>This instance</h3>
      {ready.instance.length === 0 ? (
        <p className="hint">None added.</p>
      ) : (
        table('Sinks of this instance', ready.instance)
      )}
      <h3>Global</h3>
      {ready.global.length === 0 ? <p className="hint">None added.</p> : table('Global sinks', ready.global)}
      <form className="stack" onSubmit={(event) => void add(event)} aria-label="Add a broker sink">
        <div className="field">
          <label htmlFor="sink-kind">Broker</label>
          <select
            id="sink-kind"
            value={kind}
            onChange={(event) => setKind(event.target.value as SinkView['kind'])}
          >
            <option value="rabbitmq">{KIND_NAMES.rabbitmq}</option>
            <option value="nats">{KIND_NAMES.nats}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="sink-url">Broker address</label>
          <input
            id="sink-url"
            value={url}
            required
            autoComplete="off"
            placeholder={PLACEHOLDERS[kind]}
            onChange={(event) => setUrl(event.target.value.trim())}
          />
        </div>
        <div className="field">
          <label htmlFor="sink-target">{kind === 'rabbitmq' ? 'Exchange' : 'Stream'}</label>
          <input
            id="sink-target"
            value={target}
            placeholder={kind === 'rabbitmq' ? 'linkdesk (default)' : 'LINKDESK (default)'}
            onChange={(event) => setTarget(event.target.value)}
          />
        </div>
        <FilterScopeAndSubmit
          target="sink"
          eventsLabel="Sink events"
          events={events}
          onEvents={setEvents}
          global={global}
          onGlobal={setGlobal}
          instanceId={instanceId}
        />
      </form>
      {error ? <ErrorNotice error={error} context="Sink not changed" /> : null}
      {removing ? (
        <ConfirmTargetRemoval
          target="sink"
          url={removing.url}
          onConfirm={() => void remove(removing)}
          onCancel={() => setRemoving(null)}
        />
      ) : null}
    </section>
  )
}
