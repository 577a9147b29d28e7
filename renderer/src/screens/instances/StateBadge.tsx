/** The instance states the server reports, in words, and how each looks. */
const STATES: Record<string, { label: string; tone: 'ok' | 'wait' | 'bad' | 'idle'; next: string }> = {
  idle: {
    label: 'Not linked',
    tone: 'idle',
    next: 'Show its QR code and scan it with WhatsApp on your phone.',
  },
  qr: { label: 'Waiting for a scan', tone: 'wait', next: 'Scan the QR code with WhatsApp on your phone.' },
  connecting: { label: 'Connecting', tone: 'wait', next: 'Wait a moment: it connects by itself.' },
  connected: { label: 'Connected', tone: 'ok', next: 'Ready to send and receive.' },
  disconnected: {
    label: 'Disconnected',
    tone: 'bad',
    next: 'The link is kept; Linkdesk retries by itself, or reconnect it now.',
  },
  logged_out: { label: 'Logged out', tone: 'bad', next: 'The phone removed the link: scan a new QR code.' },
}

/** What the operator can do next in this state. */
export function nextStep(state: string): string {
  return STATES[state]?.next ?? 'Check the API docs for this state.'
}

/** The state in words, with its cause for the curious (and screen readers). */
export function StateBadge({ state, cause }: { state: string; cause?: string }) {
  const known = STATES[state]
  return (
    <span
      className={`badge badge-${known?.tone ?? 'idle'}`}
      title={cause ? `Cause: ${cause.replace(/_/g, ' ')}` : undefined}
    >
      <span className="visually-hidden">State: </span>
      {known?.label ?? state}
      {cause ? <span className="visually-hidden">, cause: {cause.replace(/_/g, ' ')}</span> : null}
    </span>
  )
}
