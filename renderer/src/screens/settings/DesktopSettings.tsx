import { type FormEvent, useEffect, useState } from 'react'
import type { LinkdeskBridge } from '../../desktop-bridge'
import { useAction } from '../../app/use-action'
import { ErrorNotice } from '../../components/ErrorNotice'

type StartOnLogin = Awaited<ReturnType<LinkdeskBridge['getStartOnLogin']>>
type Ports = Awaited<ReturnType<LinkdeskBridge['getPort']>>

/** The desktop app's settings: port for the next launch, start on login, the data folder. */
export function DesktopSettings({ bridge }: { bridge: LinkdeskBridge }) {
  const [startOnLogin, setStartOnLogin] = useState<StartOnLogin | null>(null)
  const [ports, setPorts] = useState<Ports | null>(null)
  const [port, setPort] = useState('')
  const { error, run } = useAction()

  useEffect(() => {
    void run(async () => setStartOnLogin(await bridge.getStartOnLogin()))
    void run(async () => {
      const answer = await bridge.getPort()
      setPorts(answer)
      setPort(String(answer.saved))
    })
  }, [bridge, run])

  const savePort = async (event: FormEvent) => {
    event.preventDefault()
    const saved = await run(() => bridge.setPort(Number(port)))
    if (saved) setPorts(saved)
  }
  const toggleStartOnLogin = async (enabled: boolean) => {
    const changed = await run(() => bridge.setStartOnLogin(enabled))
    if (changed) setStartOnLogin(changed)
  }

  return (
    <div className="stack">
      {error ? <ErrorNotice error={error} /> : null}
      <form className="inline-form" onSubmit={(event) => void savePort(event)}>
        <label htmlFor="settings-port">API port</label>
        <input
          id="settings-port"
          type="number"
          min={1}
          max={65535}
          required
          value={port}
          onChange={(event) => setPort(event.target.value)}
          aria-describedby="settings-port-hint"
        />
        <button type="submit">Save port</button>
        <p id="settings-port-hint" className="hint">
          {ports && ports.saved !== ports.current
            ? `Linkdesk listens on ${ports.current} now and on ${ports.saved} after a restart.`
            : 'Takes effect the next time Linkdesk starts.'}
        </p>
      </form>
      {startOnLogin ? (
        <div className="field-inline">
          <input
            id="settings-start-on-login"
            type="checkbox"
            checked={startOnLogin.enabled}
            disabled={!startOnLogin.supported}
            onChange={(event) => void toggleStartOnLogin(event.target.checked)}
          />
          <label htmlFor="settings-start-on-login">
            Start Linkdesk when I log in{startOnLogin.supported ? '' : ' (not available on this system)'}
          </label>
        </div>
      ) : null}
      <div>
        <button type="button" onClick={() => void run(() => bridge.revealDataFolder())}>
          Show data folder
        </button>{' '}
        <button type="button" onClick={() => void run(() => bridge.openLogFile())}>
          Open log file
        </button>
      </div>
    </div>
  )
}
