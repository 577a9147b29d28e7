import { EmptyState } from '../components/EmptyState'

/** The event and delivery log. */
export function EventsScreen() {
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title" tabIndex={-1}>
        Events
      </h1>
      <p className="lead">Every event of every instance, and each webhook delivery attempt.</p>
      <EmptyState title="No events yet">
        <p>
          Events appear once an instance is linked and messages flow. To receive them in your own program, set
          a webhook on the Webhooks screen.
        </p>
      </EmptyState>
    </section>
  )
}
