import './StateBadge.css'

type Tone = 'ok' | 'wait' | 'bad' | 'idle'

/** The instance states the server reports, in words, and how each looks. */
const STATES: Record<string, { label: string; tone: Tone; next: string }> = {
  idle: {
    label: 'Not linked',
    tone: 'idle',
    next: 'Link an account: show its QR code and scan it with WhatsApp on your phone.',
  },
  qr: { label: 'Waiting for a scan', tone: 'wait', next: 'Scan the QR code with WhatsApp on your phone.' },
  connecting: { label: 'Connecting', tone: 'wait', next: 'Wait a moment: it connects by itself.' },
  connected: { label: 'Connected', tone: 'ok', next: 'Ready to send and receive.' },
  disconnected: {
    label: 'Disconnected',
    tone: 'bad',
    next: 'The link is kept and Linkdesk retries by itself; or reconnect it now.',
  },
  logged_out: { label: 'Logged out', tone: 'bad', next: 'A new scan is needed: link the account again.' },
}

/** Causes whose advice differs from their state's. */
const CAUSE_NEXT: Record<string, string> = {
  qr_expired: 'Nobody scanned the QR code in time: link the account to show a new one.',
  temporarily_banned: 'WhatsApp refuses this account for now: wait, then reconnect.',
  client_outdated:
    'WhatsApp refuses this client version and no newer one could be fetched: check the network, then reconnect; if it persists, update Linkdesk.',
  bad_user_agent: 'WhatsApp refused the connection: update Linkdesk, then reconnect.',
  connection_replaced:
    'Another client took over this session (the same link opened elsewhere). Linkdesk stopped so the two do not fight: close the other copy, then reconnect.',
  device_removed: 'The phone removed this linked device: link the account again.',
  account_banned: 'WhatsApp banned this account: it cannot be linked.',
}

/** A cause in words: `qr_expired` → "qr expired". */
export function causeInWords(cause: string | undefined): string {
  return (cause ?? '').replace(/_/g, ' ')
}

/** What the operator can do next in this state, for this cause. */
export function nextStep(state: string, cause?: string): string {
  return (cause && CAUSE_NEXT[cause]) ?? STATES[state]?.next ?? 'Check the API docs for this state.'
}

/** The state's label in words, for plain text such as a select's options. */
export function stateInWords(state: string): string {
  return STATES[state]?.label ?? state
}

/** The state in words, and its cause. */
export function StateBadge({ state, cause }: { state: string; cause?: string }) {
  const known = STATES[state]
  return (
    <span className="state">
      <span className={`badge badge-${known?.tone ?? 'idle'}`}>
        <span className="visually-hidden">State: </span>
        {known?.label ?? state}
      </span>
      {cause ? (
        <span className="cause">
          <span className="visually-hidden">, cause: </span>
          {causeInWords(cause)}
        </span>
      ) : null}
    </span>
  )
}
