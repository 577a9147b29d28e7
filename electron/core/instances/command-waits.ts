import { AppError } from '../errors'
import type { InstanceStatus, QrCode } from '../contract/instance-state'
import { NOT_LINKED_YET } from './live-connections'
import { unhandledCase } from '../exhaustive'

// What the commands wait for in an instance's status: each check answers the awaited result, undefined to wait
// on, or throws the error that ends the wait (the instance will not get there without the user).

/** generate_qrcode's wait: the current QR code, or the end of the QR wait (linked, idle again, logged out). */
export function scannableQr(status: InstanceStatus): QrCode | undefined {
  if (status.qr) return status.qr
  if (status.linked) throw new AppError('already_linked')
  if (status.state === 'idle' || status.state === 'logged_out') {
    throw new AppError('upstream_failed', `The QR wait ended: ${status.cause.replace(/_/g, ' ')}.`)
  }
  return undefined
}

/** reconnect's wait: connected, or unlinked by the phone, or stopped by the network with no retry planned. */
export function reconnected(status: InstanceStatus): true | undefined {
  if (status.state === 'connected') return true
  if (!status.linked) throw new AppError('not_linked', 'The phone removed this device: scan a new QR code.')
  if (status.state === 'disconnected' && status.nextRetryAt === null && status.cause !== 'restoring') {
    throw new AppError(
      'upstream_failed',
      `The network refused the connection: ${status.cause.replace(/_/g, ' ')}.`,
    )
  }
  return undefined
}

/**
 * A messaging operation's wait for the connection: refused at once (409 not_connected) unless the instance
 * is on its way to `connected` by `deadline`.
 */
export function refuseUnlessOnTheWay(status: InstanceStatus, deadline: number): undefined {
  if (!onTheWay(status, deadline))
    throw new AppError('not_connected', status.linked ? undefined : NOT_LINKED_YET)
  return undefined
}

/** How long generate_qrcode and reconnect wait for the network, and the error when it gave nothing. */
export function networkTimeout(what: string, ms: number): { ms: number; error: () => AppError } {
  return { ms, error: () => new AppError('upstream_timeout', `The network did not give ${what} in time.`) }
}

/**
 * Whether an instance that is not connected is expected to be so shortly by itself: it is linked and
 * connecting, waiting for its staggered restore, or retrying before `deadline`. A QR wait, a logout or a
 * stop (such as 405 or 440) will not connect without the user.
 */
function onTheWay(status: InstanceStatus, deadline: number): boolean {
  if (!status.linked) return false
  switch (status.state) {
    case 'connecting':
      return true
    case 'disconnected':
      return status.cause === 'restoring' || (status.nextRetryAt !== null && status.nextRetryAt <= deadline)
    case 'connected':
    case 'idle':
    case 'qr':
    case 'logged_out':
      return false
    default:
      return unhandledCase(status.state, 'instance state')
  }
}
