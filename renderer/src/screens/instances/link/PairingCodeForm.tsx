import { type FormEvent, useState } from 'react'
import { useApi } from '../../../app/api-context'
import { useAction } from '../../../app/use-action'
import { useSandbox } from '../../../app/service-context'
import { ErrorNotice } from '../../../components/ErrorNotice'
import './PairingCodeForm.css'

/** Link by phone number instead of scanning: the phone shows where to type the code. */
export function PairingCodeForm({ instanceId }: { instanceId: string }) {
  const api = useApi()
  const [phone, setPhone] = useState('')
  const [code, setCode] = useState<string | null>(null)
  const { busy, error, run } = useAction()
  const sandbox = useSandbox()
  const typing = useAction()

  /** Sandbox mode: the simulated phone of that number types the code, as its owner would. */
  const typeOnPhone = async (shown: string) => {
    const digits = phone.replace(/\D/g, '')
    await typing.run(() =>
      api.request('POST', `sandbox/accounts/${digits}/pairing_code`, { json: { code: shown } }),
    )
  }

  const request = async (event: FormEvent) => {
    event.preventDefault()
    setCode(null)
    const answer = await run(() =>
      api.call<{ code: string }>('pairing_code', { instance_id: instanceId, phone }),
    )
    if (answer) setCode(answer.code)
  }

  return (
    <form className="stack" onSubmit={(event) => void request(event)} aria-labelledby="pairing-title">
      <h3 id="pairing-title">Or link with a pairing code</h3>
      <div className="field">
        <label htmlFor="pairing-phone">Phone number of the account</label>
        <input
          id="pairing-phone"
          value={phone}
          required
          inputMode="tel"
          autoComplete="tel"
          placeholder="e.g. 4915112345678"
          aria-describedby="pairing-hint"
          onChange={(event) => setPhone(event.target.value)}
        />
        <p id="pairing-hint" className="hint">
          Digits with country code. On the phone: Linked devices → Link a device → Link with phone number.
        </p>
      </div>
      <div className="actions">
        <button type="submit" disabled={!!busy}>
          {busy ? 'Asking for a code…' : 'Get a pairing code'}
        </button>
      </div>
      {error ? <ErrorNotice error={error} context="No pairing code" /> : null}
      {code ? (
        <p className="pairing-code" role="status">
          Type this code on the phone: <strong>{code}</strong>
        </p>
      ) : null}
      {code && sandbox ? (
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={typing.busy !== null}
            onClick={() => void typeOnPhone(code)}
          >
            {typing.busy ? 'Typing the code…' : 'Type it on the sandbox phone'}
          </button>
        </div>
      ) : null}
      {typing.error ? <ErrorNotice error={typing.error} context="The sandbox phone could not link" /> : null}
    </form>
  )
}
