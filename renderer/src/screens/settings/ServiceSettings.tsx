import { useServiceSettings } from '../../app/service-context'
import { formatSize } from '../composer/FileDropZone'

/** What the server runs with: limits, send pacing, webhook retries and log retention. */
export function ServiceSettings() {
  const settings = useServiceSettings()
  if (!settings) return <p className="loading">Loading the server&apos;s settings…</p>
  const { limits, webhook, retention } = settings
  return (
    <section aria-labelledby="service-settings-title" className="stack">
      <h2 id="service-settings-title">Limits, pacing and retention</h2>
      <dl className="facts">
        <dt>Network</dt>
        <dd>
          {settings.network === 'whatsapp' ? 'WhatsApp' : 'Sandbox (simulated network, no real accounts)'}
        </dd>
        <dt>Send pacing</dt>
        <dd>
          {limits.send_interval_ms === 0
            ? 'Off'
            : `One send per ${limits.send_interval_ms} ms per instance, plus up to ${limits.send_jitter_ms} ms at random`}
        </dd>
        <dt>Requests</dt>
        <dd>{limits.requests_per_minute} per minute per token</dd>
        <dt>Sizes</dt>
        <dd>
          Body {formatSize(limits.body_bytes)}, text {limits.text_chars} characters, media{' '}
          {formatSize(limits.media_bytes)} fetched within {limits.media_fetch_ms / 1000} s
        </dd>
        <dt>Webhook retries</dt>
        <dd>
          Up to {webhook.max_attempts} attempts, {webhook.timeout_ms / 1000} s each, backing off from{' '}
          {webhook.backoff_base_ms / 1000} s to {Math.round(webhook.backoff_max_ms / 60_000)} min
        </dd>
        <dt>Log retention</dt>
        <dd>
          {retention.max_age_days} days, at most {retention.max_events.toLocaleString()} events and{' '}
          {retention.max_deliveries.toLocaleString()} delivery attempts
        </dd>
      </dl>
      <p className="hint">
        These are set when the server starts; docs/operations.md in the project lists how to change them.
      </p>
    </section>
  )
}
