import { type FormEvent, useEffect, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'
import {
  CONTACT_KINDS,
  type ContactDraft,
  contactSendBody,
  EMPTY_CONTACT_DRAFT,
  takesFile,
} from './contact-send'

/** A local file as the control API takes it: base64, with its type and name. */
async function readFile(file: File): Promise<NonNullable<ContactDraft['file']>> {
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'))
    reader.readAsDataURL(file)
  })
  return { base64: url.slice(url.indexOf(',') + 1), mimetype: file.type, name: file.name }
}

/** Sends any kind of message as a sandbox contact, as a person on a phone would. */
export function ContactSendForm({
  phone,
  label,
  suggestedTo,
}: {
  phone: string
  label: string
  suggestedTo: string
}) {
  const api = useApi()
  const [draft, setDraft] = useState<ContactDraft>({ ...EMPTY_CONTACT_DRAFT, to: suggestedTo })
  const { error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const change = (next: Partial<ContactDraft>) => setDraft((current) => ({ ...current, ...next }))
  useEffect(
    () => setDraft((current) => (current.to ? current : { ...current, to: suggestedTo })),
    [suggestedTo],
  )

  const send = async (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    const sent = await run(async () => {
      const path = `sandbox/accounts/${encodeURIComponent(phone)}/messages`
      await api.request('POST', path, { json: contactSendBody(draft) })
      return true
    })
    if (!sent) return
    change({ text: '', replyTo: '', mentions: '' })
    setStatus(`Sent as +${phone}.`)
  }

  const withText = draft.kind === 'text' || draft.kind === 'file'
  return (
    <>
      <form className="stack" onSubmit={(event) => void send(event)} aria-label={`Send as ${label}`}>
        <div className="field">
          <label htmlFor="contact-to">To (number or group id)</label>
          <input
            id="contact-to"
            value={draft.to}
            required
            onChange={(event) => change({ to: event.target.value.trim() })}
          />
        </div>
        <fieldset className="segmented">
          <legend>Send</legend>
          {CONTACT_KINDS.map(({ kind, label: name }) => (
            <label key={kind}>
              <input
                type="radio"
                name="contact-kind"
                checked={draft.kind === kind}
                onChange={() => change({ kind })}
              />
              {name}
            </label>
          ))}
        </fieldset>
        {takesFile(draft.kind) ? (
          <div className="field">
            <label htmlFor="contact-file">File</label>
            <input
              id="contact-file"
              type="file"
              required
              onChange={(event) => {
                const file = event.target.files?.[0]
                if (file) void run(async () => change({ file: await readFile(file) }))
                else change({ file: null })
              }}
            />
            {draft.kind === 'voice_note' ? (
              <p className="hint">A voice note is Ogg/Opus audio, as the apps record it.</p>
            ) : null}
          </div>
        ) : null}
        {draft.kind === 'location' ? (
          <div className="field-row">
            <div className="field">
              <label htmlFor="contact-latitude">Latitude</label>
              <input
                id="contact-latitude"
                required
                inputMode="decimal"
                value={draft.latitude}
                onChange={(event) => change({ latitude: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="contact-longitude">Longitude</label>
              <input
                id="contact-longitude"
                required
                inputMode="decimal"
                value={draft.longitude}
                onChange={(event) => change({ longitude: event.target.value })}
              />
            </div>
            <div className="field">
              <label htmlFor="contact-place">Place name (optional)</label>
              <input
                id="contact-place"
                value={draft.placeName}
                onChange={(event) => change({ placeName: event.target.value })}
              />
            </div>
          </div>
        ) : null}
        {draft.kind === 'contacts' ? (
          <div className="field">
            <label htmlFor="contact-cards">Cards, one a line (name: number)</label>
            <textarea
              id="contact-cards"
              required
              rows={2}
              value={draft.contacts}
              onChange={(event) => change({ contacts: event.target.value })}
            />
          </div>
        ) : null}
        {withText ? (
          <div className="field">
            <label htmlFor="contact-text">{draft.kind === 'text' ? 'Message' : 'Caption (optional)'}</label>
            <textarea
              id="contact-text"
              value={draft.text}
              required={draft.kind === 'text'}
              rows={2}
              onChange={(event) => change({ text: event.target.value })}
            />
          </div>
        ) : null}
        {draft.kind === 'file' ? (
          <label>
            <input
              type="checkbox"
              checked={draft.viewOnce}
              onChange={(event) => change({ viewOnce: event.target.checked })}
            />{' '}
            View once
          </label>
        ) : null}
        {draft.kind === 'text' ? (
          <div className="field-row">
            <div className="field">
              <label htmlFor="contact-link-url">Link preview address (optional)</label>
              <input
                id="contact-link-url"
                type="url"
                value={draft.linkUrl}
                onChange={(event) => change({ linkUrl: event.target.value.trim() })}
              />
            </div>
            <div className="field">
              <label htmlFor="contact-link-title">Link preview title</label>
              <input
                id="contact-link-title"
                value={draft.linkTitle}
                required={draft.linkUrl !== ''}
                onChange={(event) => change({ linkTitle: event.target.value })}
              />
            </div>
          </div>
        ) : null}
        <div className="field-row">
          <div className="field">
            <label htmlFor="contact-reply-to">Reply to (optional)</label>
            <input
              id="contact-reply-to"
              value={draft.replyTo}
              spellCheck={false}
              onChange={(event) => change({ replyTo: event.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="contact-mentions">Mention (optional)</label>
            <input
              id="contact-mentions"
              value={draft.mentions}
              spellCheck={false}
              onChange={(event) => change({ mentions: event.target.value })}
            />
          </div>
        </div>
        <div className="actions">
          <button type="submit" className="primary">
            Send as this contact
          </button>
        </div>
      </form>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Sandbox" /> : null}
    </>
  )
}
