import { type FormEvent, useState } from 'react'
import { useApi } from '../../../app/api-context'
import { useAction } from '../../../app/use-action'
import { ErrorNotice } from '../../../components/ErrorNotice'
import './SandboxScanForm.css'

/** A number for a new simulated phone, so a first scan needs no typing. */
function suggestedPhone(): string {
  return `1555${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`
}

/** In sandbox mode: a simulated phone scans the QR code shown now (its text, as a camera would read it). */
export function SandboxScanForm({ qrText }: { qrText: string | undefined }) {
  const api = useApi()
  const [phone, setPhone] = useState(suggestedPhone)
  const [name, setName] = useState('Sandbox phone')
  const { busy, error, run } = useAction()

  const scan = async (event: FormEvent) => {
    event.preventDefault()
    if (!qrText) return
    await run(() => api.request('POST', 'sandbox/link', { json: { qr: qrText, phone, name } }))
  }

  return (
    <form
      className="stack sandbox-box"
      onSubmit={(event) => void scan(event)}
      aria-labelledby="sandbox-scan-title"
    >
      <h3 id="sandbox-scan-title">Sandbox: scan with a simulated phone</h3>
      <div className="field">
        <label htmlFor="sandbox-phone">Phone number</label>
        <input
          id="sandbox-phone"
          value={phone}
          required
          inputMode="tel"
          onChange={(event) => setPhone(event.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="sandbox-name">Account name</label>
        <input id="sandbox-name" value={name} onChange={(event) => setName(event.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy !== null || !qrText}>
          {busy ? 'Scanning…' : 'Scan with a sandbox phone'}
        </button>
      </div>
      {!qrText ? <p className="hint">Waiting for the QR code to scan.</p> : null}
      {error ? <ErrorNotice error={error} context="The sandbox phone could not scan" /> : null}
    </form>
  )
}
