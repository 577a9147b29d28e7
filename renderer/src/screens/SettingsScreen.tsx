import type { Session } from '../auth/session'
import { ScreenHeader } from '../components/ScreenHeader'
import { desktopBridge } from '../desktop-bridge'
import { DesktopSettings } from './settings/DesktopSettings'
import { McpSettings } from './settings/McpSettings'
import { ServiceSettings } from './settings/ServiceSettings'

/** Where the API is, and the desktop app's own settings when running in it. */
export function SettingsScreen({ session }: { session: Session }) {
  const bridge = desktopBridge()
  return (
    <section aria-labelledby="settings-title">
      <ScreenHeader id="settings-title" title="Settings" />
      <dl className="facts">
        <dt>API base URL</dt>
        <dd>
          <code>{session.apiBase}</code>
        </dd>
        <dt>Running as</dt>
        <dd>
          {session.source === 'desktop'
            ? `Desktop app ${bridge?.version ?? ''}`
            : 'Headless server, in a browser'}
        </dd>
        <dt>API documentation</dt>
        <dd>
          <a href={`${session.apiBase}/docs`} target="_blank" rel="noreferrer">
            {session.apiBase}/docs
          </a>{' '}
          and the OpenAPI document at <code>{session.apiBase}/openapi.json</code>
        </dd>
      </dl>
      {bridge ? (
        <DesktopSettings bridge={bridge} />
      ) : (
        <p className="notice">
          The headless server takes its settings from the command line: <code>npm run serve -- --port N</code>{' '}
          changes the port, <code>--data-dir DIR</code> the data folder. Start on login is a desktop app
          setting.
        </p>
      )}
      <McpSettings apiBase={session.apiBase} />
      <ServiceSettings />
    </section>
  )
}
