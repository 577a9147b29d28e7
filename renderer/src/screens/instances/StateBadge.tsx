/** The instance states the server reports, in words, with what the operator can do next. */
const STATES: Record<string, { label: string; tone: 'ok' | 'wait' | 'bad' | 'idle' }> = {
  idle: { label: 'Not linked', tone: 'idle' },
  qr: { label: 'Waiting for a QR scan', tone: 'wait' },
  connecting: { label: 'Connecting', tone: 'wait' },
  connected: { label: 'Connected', tone: 'ok' },
  disconnected: { label: 'Disconnected, retrying', tone: 'bad' },
  logged_out: { label: 'Logged out: scan again', tone: 'bad' },
}

export function StateBadge({ state }: { state: string | undefined }) {
  const known = state ? STATES[state] : undefined
  return (
    <span className={`badge badge-${known?.tone ?? 'idle'}`}>
      <span className="visually-hidden">State: </span>
      {known?.label ?? state ?? 'Unknown state'}
    </span>
  )
}
