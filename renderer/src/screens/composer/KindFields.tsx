import type { ComposerDraft } from './composer-params'

interface KindFieldsProps {
  draft: ComposerDraft
  onChange(change: Partial<ComposerDraft>): void
}

/** A place: decimal degrees, with an optional name and address. */
export function LocationFields({ draft, onChange }: KindFieldsProps) {
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor="composer-latitude">Latitude</label>
        <input
          id="composer-latitude"
          inputMode="decimal"
          required
          value={draft.latitude}
          placeholder="-33.8568"
          onChange={(event) => onChange({ latitude: event.target.value.trim() })}
        />
      </div>
      <div className="field">
        <label htmlFor="composer-longitude">Longitude</label>
        <input
          id="composer-longitude"
          inputMode="decimal"
          required
          value={draft.longitude}
          placeholder="151.2153"
          onChange={(event) => onChange({ longitude: event.target.value.trim() })}
        />
      </div>
      <div className="field">
        <label htmlFor="composer-place">Place name (optional)</label>
        <input
          id="composer-place"
          value={draft.locationName}
          onChange={(event) => onChange({ locationName: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="composer-address">Address (optional)</label>
        <input
          id="composer-address"
          value={draft.address}
          onChange={(event) => onChange({ address: event.target.value })}
        />
      </div>
    </div>
  )
}

/** Contact cards, one a line. */
export function ContactFields({ draft, onChange }: KindFieldsProps) {
  return (
    <div className="field">
      <label htmlFor="composer-contacts">Contact cards</label>
      <textarea
        id="composer-contacts"
        required
        rows={3}
        value={draft.contacts}
        placeholder="Alice Smith: +1 555 123 4567"
        aria-describedby="composer-contacts-hint"
        onChange={(event) => onChange({ contacts: event.target.value })}
      />
      <p id="composer-contacts-hint" className="hint">
        One card a line: a name, a colon, and the number with country code.
      </p>
    </div>
  )
}

/** What any kind may add: the message it replies to, and the people it mentions. */
export function ReplyFields({ draft, onChange }: KindFieldsProps) {
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor="composer-reply-to">Reply to (optional)</label>
        <input
          id="composer-reply-to"
          value={draft.replyTo}
          spellCheck={false}
          aria-describedby="composer-reply-hint"
          onChange={(event) => onChange({ replyTo: event.target.value })}
        />
        <p id="composer-reply-hint" className="hint">
          The id of an earlier message, sent or received, to quote; or pick “Reply in the composer” on a
          message in the event log.
        </p>
      </div>
      <div className="field">
        <label htmlFor="composer-mentions">Mention (optional)</label>
        <input
          id="composer-mentions"
          value={draft.mentions}
          spellCheck={false}
          placeholder="15551234567, 15557654321"
          onChange={(event) => onChange({ mentions: event.target.value })}
        />
      </div>
    </div>
  )
}
