import type { Account } from '../accounts/account'
import type { SandboxNetwork } from '../network'
import { node } from '../stanzas/binary-node'
import type { ClientConnection } from '../transport/client-connection'

export type DropMode = 'close' | 'silent'

/** Cuts the network under every connected linked device of the account: a closed socket, or a link that goes silent. */
export function dropConnections(account: Account, mode: DropMode): number {
  let dropped = 0
  for (const device of account.activeDevices()) {
    const connection = device.connection
    if (!connection?.isOpen) continue
    if (mode === 'close') connection.terminate()
    else connection.goSilent()
    dropped++
  }
  return dropped
}

/** The phone removes all its linked devices: connected ones get a 401 device_removed stream error. */
export function unlinkDevices(account: Account): number {
  const devices = account.activeDevices()
  for (const device of devices) {
    device.markRemoved()
    const connection = device.connection
    if (!connection?.isOpen) continue
    connection.send(node('stream:error', { code: '401' }, [node('conflict', { type: 'device_removed' })]))
    connection.close()
  }
  return devices.length
}

/**
 * Another session logged in with the same credentials: every connected linked device of the account gets the
 * `<conflict type="replaced"/>` stream error (440 for the client) and its socket closes; answers how many.
 */
export function replaceDevices(account: Account): number {
  let replaced = 0
  for (const device of account.activeDevices()) {
    const connection = device.connection
    if (!connection?.isOpen) continue
    closeReplaced(connection)
    replaced++
  }
  return replaced
}

/** Closes a device's socket as WhatsApp does when another session took its place (440 "replaced"). */
export function closeReplaced(connection: ClientConnection): void {
  connection.send(node('stream:error', {}, [node('conflict', { type: 'replaced' })]))
  connection.close()
}

/**
 * The `<failure reason>` codes the network refuses a login with: 401 logged out, 403 forbidden, 405 client
 * not allowed, 406 banned, 409 conflict, 411 multi-device mismatch, 500 bad session, 503 unavailable.
 */
export const LOGIN_FAILURE_REASONS: readonly number[] = [401, 403, 405, 406, 409, 411, 500, 503]

/** The next login of the account's devices fails with this reason (one of `LOGIN_FAILURE_REASONS`). */
export function failNextLogin(network: SandboxNetwork, account: Account, reason: number): void {
  network.loginFailures.set(account.phone, reason)
}

/** The longest outage the network keeps an account's devices out for (10 minutes). */
export const MAX_OUTAGE_MS = 600_000

/** The account's devices cannot log in until `until` (ms since the epoch): their connections are cut at login. */
export function keepNetworkDown(network: SandboxNetwork, account: Account, until: number): void {
  network.outages.set(account.phone, until)
}
