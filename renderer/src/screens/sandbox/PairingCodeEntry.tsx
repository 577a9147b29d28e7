import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

/** The phone types the code a device shows for its number (Linked devices → Link with phone number). */
export function PairingCodeEntry({ phone }: { phone: string }) {
  const api = useApi()
  const [code, setCode] = useState('')
  const { busy, error, run } = useAction()
  const [status, setStatus] = useState<string | null>(null)
  const enter = async (event: FormEvent) => {
    event.preventDefault()
    setStatus(null)
    const path = `sandbox/accounts/${encodeURIComponent(phone)}/pairing_code`
    const linked = await run(() => api.request<{ jid: string }>('POST', path, { json: { code } }))
    if (linked) setStatus(`Linked ${linked.jid}.`)
  }
  return (
    <form className="stack" aria-label="Enter a pairing code on this phone" onSubmit={(e) => void enter(e)}>
      <h3>Link with a pairing code</h3>
      <div className="field">
        <label htmlFor="contact-pairing-code">Code the device shows</label>
        <input
          id="contact-pairing-code"
          value={code}
          required
          placeholder="ABCD-EFGH"
          autoComplete="off"
          onChange={(event) => setCode(event.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" disabled={busy !== null}>
          {busy ? 'Linking…' : 'Enter the code'}
        </button>
      </div>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Not linked" /> : null}
    </form>
  )
}
