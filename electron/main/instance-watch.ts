import type { InstanceStatus } from '../core'

/** One instance as the tray lists it. */
export interface TrayInstance {
  id: string
  label: string
  state: InstanceStatus['state']
  linked: boolean
}

const STATE_WORDS: Record<InstanceStatus['state'], string> = {
  idle: 'Not linked',
  qr: 'Waiting for a scan',
  connecting: 'Connecting',
  connected: 'Connected',
  disconnected: 'Disconnected',
  logged_out: 'Logged out',
}

export function stateInWords(state: InstanceStatus['state']): string {
  return STATE_WORDS[state]
}

/** How the operator recognizes an instance: its account, or the start of its id. */
export function instanceLabel(id: string, status: Pick<InstanceStatus, 'account'>): string {
  const account = status.account
  if (!account) return `Unlinked instance ${id.slice(0, 6)}…`
  return account.name ? `${account.name} (+${account.number})` : `+${account.number}`
}

export interface InstanceNotice {
  title: string
  body: string
}

/**
 * The desktop notification a status change deserves: losing a working connection, or losing the link. The
 * retries of an already disconnected instance, and every other change, stay quiet.
 */
export function noticeFor(
  id: string,
  previous: InstanceStatus['state'] | undefined,
  status: Pick<InstanceStatus, 'state' | 'cause' | 'account'>,
): InstanceNotice | null {
  if (status.state === previous) return null
  const cause = status.cause.replace(/_/g, ' ')
  if (status.state === 'disconnected' && previous === 'connected') {
    return {
      title: `${instanceLabel(id, status)} disconnected`,
      body: `Cause: ${cause}. Linkdesk retries by itself; messages wait until it is back.`,
    }
  }
  if (status.state === 'logged_out' && previous !== undefined && status.cause !== 'reinitialized') {
    return {
      title: `${instanceLabel(id, status)} was logged out`,
      body: `Cause: ${cause}. Scan a new QR code to link it again.`,
    }
  }
  return null
}
