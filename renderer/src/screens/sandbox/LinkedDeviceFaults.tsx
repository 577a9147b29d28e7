import { type FormEvent, useState } from 'react'
import { useApi } from '../../app/api-context'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

/** The codes the sandbox can fail a login with, and what Linkdesk makes of each. */
const LOGIN_FAILURES = [
  { code: 401, effect: 'credentials rejected: logged out' },
  { code: 403, effect: 'account locked: logged out' },
  { code: 405, effect: 'client outdated: stops' },
  { code: 406, effect: 'account banned: logged out' },
  { code: 409, effect: 'bad user agent: stops' },
  { code: 411, effect: 'multi-device mismatch: logged out' },
  { code: 500, effect: 'server error: retries' },
  { code: 503, effect: 'service unavailable: retries' },
] as const

/**
 * Faults the simulated network throws at the linked devices of one phone, as the real one can: another
 * session taking over (440 "replaced"), a failed next login with a chosen code, a network cut that may stay
 * down for a while. The instance's screen shows what each does to the instance.
 */
export function LinkedDeviceFaults({ phone }: { phone: string }) {
  const api = useApi()
  const { busy, error, run } = useAction()
  const [code, setCode] = useState('409')
  const [mode, setMode] = useState<'close' | 'silent'>('close')
  const [downForSeconds, setDownForSeconds] = useState('')
  const [status, setStatus] = useState<string | null>(null)
  const base = `sandbox/accounts/${encodeURIComponent(phone)}`

  const fault = async (label: string, path: string, json: Record<string, unknown>, done: string) => {
    setStatus(null)
    const answered = await run(() => api.request('POST', `${base}/${path}`, { json }), label)
    if (answered !== undefined) setStatus(done)
  }
  const replace = () =>
    fault('replace', 'replace', {}, `Another session took over +${phone}: its devices closed with 440.`)
  const failLogin = (event: FormEvent) => {
    event.preventDefault()
    void fault(
      'fail_login',
      'fail_login',
      { code: Number(code) },
      `The next login of +${phone}'s devices fails with ${code}.`,
    )
  }
  const drop = (event: FormEvent) => {
    event.preventDefault()
    const seconds = Number(downForSeconds)
    const downFor = downForSeconds ? { down_for_ms: Math.round(seconds * 1000) } : {}
    void fault(
      'drop',
      'drop',
      { mode, ...downFor },
      downForSeconds
        ? `The network of +${phone} is down for ${seconds} s.`
        : `The network under +${phone}'s devices was cut.`,
    )
  }

  return (
    <section className="stack" aria-labelledby="faults-title">
      <h3 id="faults-title">Network faults for this phone’s linked devices</h3>
      <div className="actions">
        <button type="button" disabled={busy !== null} onClick={() => void replace()}>
          Take over the session (440 replaced)
        </button>
      </div>
      <form className="field-inline" onSubmit={failLogin} aria-label="Fail the next login">
        <label htmlFor="fault-code">Fail the next login with</label>
        <select id="fault-code" value={code} onChange={(event) => setCode(event.target.value)}>
          {LOGIN_FAILURES.map((failure) => (
            <option key={failure.code} value={failure.code}>
              {failure.code} ({failure.effect})
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy !== null}>
          Fail next login
        </button>
      </form>
      <form className="field-inline" onSubmit={drop} aria-label="Cut the network">
        <label htmlFor="fault-mode">Cut the network</label>
        <select
          id="fault-mode"
          value={mode}
          onChange={(event) => setMode(event.target.value === 'silent' ? 'silent' : 'close')}
        >
          <option value="close">closing the socket</option>
          <option value="silent">going silent</option>
        </select>
        <label htmlFor="fault-down-for">down for (seconds, optional)</label>
        <input
          id="fault-down-for"
          type="number"
          min="0.001"
          max="600"
          step="any"
          value={downForSeconds}
          onChange={(event) => setDownForSeconds(event.target.value)}
        />
        <button type="submit" disabled={busy !== null}>
          Cut
        </button>
      </form>
      {status ? <p role="status">{status}</p> : null}
      {error ? <ErrorNotice error={error} context="Fault not applied" /> : null}
    </section>
  )
}
