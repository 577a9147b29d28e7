import { type FormEvent, useEffect, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'
import { type ChosenFile, replyFields } from '../../kinds/kind-forms'
import { KindChoice } from '../../kinds/KindFields'
import { CONTACT_KINDS, type ContactDraft, contactSendBody, EMPTY_CONTACT_DRAFT } from './contact-send'

const REPLY_FIELDS = replyFields()

/** A local file as the control API takes it: base64, with its type and name. */
async function readFile(file: File): Promise<ChosenFile> {
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
  const change = (next: Partial<ContactDraft>) =>
    setDraft((current) => ({ ...current, ...next }) as ContactDraft)
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

  return (
    <>
      <form className="stack" onSubmit={(event) => void send(event)} aria-label={`Send as ${label}`}>
        <div className="field">
          <label htmlFor="contact-to">To (number or group id)</label>
          <input
            id="contact-to"
            value={draft.to}
            required
            list="contact-to-choices"
            aria-describedby="contact-to-hint"
            onChange={(event) => change({ to: event.target.value.trim() })}
          />
          <datalist id="contact-to-choices">
            <option value="status@broadcast">A status update, to this phone’s contacts</option>
          </datalist>
          <p id="contact-to-hint" className="hint">
            status@broadcast posts a status update to this phone’s contacts.
          </p>
        </div>
        <KindChoice
          forms={CONTACT_KINDS}
          replyFields={REPLY_FIELDS}
          idPrefix="contact"
          values={draft}
          onChange={(name, value) => change({ [name]: value })}
          renderFile={(field) => (
            <div className="field">
              <label htmlFor={`contact-${field.name}`}>{field.label}</label>
              <input
                id={`contact-${field.name}`}
                type="file"
                required
                onChange={(event) => {
                  const file = event.target.files?.[0]
                  if (file) void run(async () => change({ file: await readFile(file) }))
                  else change({ file: null })
                }}
              />
              {field.hint ? <p className="hint">{field.hint}</p> : null}
            </div>
          )}
        />
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
