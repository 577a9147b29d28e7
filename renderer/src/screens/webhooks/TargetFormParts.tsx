import { ConfirmDialog } from '../../components/ConfirmDialog'

/** Where events go: an added webhook or a broker sink (their forms and confirmations read alike). */
type Target = 'webhook' | 'sink'

/**
 * The end of a form adding an event target: its event filter, whether it is global, and the submit button
 * (a target for one instance needs one chosen).
 */
export function FilterScopeAndSubmit(props: {
  target: Target
  eventsLabel: string
  events: string
  onEvents(events: string): void
  global: boolean
  onGlobal(global: boolean): void
  instanceId: string | undefined
}) {
  const id = props.target === 'webhook' ? 'added-webhook' : 'sink'
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-events`}>{props.eventsLabel}</label>
        <input
          id={`${id}-events`}
          value={props.events}
          placeholder="message.*, group.participants (empty: every event)"
          onChange={(event) => props.onEvents(event.target.value)}
        />
      </div>
      <div className="field-inline">
        <input
          id={`${id}-global`}
          type="checkbox"
          checked={props.global}
          onChange={(event) => props.onGlobal(event.target.checked)}
        />
        <label htmlFor={`${id}-global`}>Global: for every instance</label>
      </div>
      <div className="actions">
        <button type="submit" disabled={!props.global && !props.instanceId}>
          Add {props.target}
        </button>
      </div>
    </>
  )
}

/** Asks before a target is removed, saying what is lost. */
export function ConfirmTargetRemoval(props: {
  target: Target
  url: string
  onConfirm(): void
  onCancel(): void
}) {
  return (
    <ConfirmDialog
      title={`Remove this ${props.target}?`}
      confirmLabel={`Remove ${props.target}`}
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      <p>
        <code>{props.url}</code> gets no more events, and what it had not received yet is dropped.
      </p>
    </ConfirmDialog>
  )
}
