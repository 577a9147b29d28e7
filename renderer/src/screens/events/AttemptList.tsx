import type { DeliveryAttemptView } from '../../api/types'
import './AttemptList.css'

/**
 * Every attempt to deliver an event: to which webhook, when, the receiver's answer, how long it took, and what
 * came of it. The table scrolls inside its box when it is wider.
 */
export function AttemptList({ attempts }: { attempts: readonly DeliveryAttemptView[] }) {
  if (attempts.length === 0) return <p className="hint">No delivery attempt yet.</p>
  return (
    <div className="attempts-box">
      <table className="table attempts">
        <caption className="visually-hidden">Delivery attempts</caption>
        <thead>
          <tr>
            <th scope="col">Webhook</th>
            <th scope="col">Attempt</th>
            <th scope="col">Time</th>
            <th scope="col">Answer</th>
            <th scope="col">Latency</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.delivery_id}>
              <td className="attempt-url">{attempt.url}</td>
              <td>#{attempt.attempt}</td>
              <td>{new Date(attempt.attempted_at).toLocaleTimeString()}</td>
              <td>
                {attempt.status_code === null
                  ? (attempt.error ?? 'No answer')
                  : `HTTP ${attempt.status_code}`}
              </td>
              <td>{attempt.latency_ms.toFixed(1)} ms</td>
              <td>
                <span className={`badge badge-${OUTCOME_TONE[attempt.outcome]}`}>{attempt.outcome}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const OUTCOME_TONE = { delivered: 'ok', retrying: 'wait', failed: 'bad' } as const
