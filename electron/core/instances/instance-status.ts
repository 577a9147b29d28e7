import type { LoggedOutCause, LostCause, StoppedCause } from '../wa/disconnect-reason'
import type { WaAccount } from '../wa/wa-types'

/** The states of design §5. */
export const INSTANCE_STATES = [
  'idle',
  'qr',
  'connecting',
  'connected',
  'disconnected',
  'logged_out',
] as const
export type InstanceState = (typeof INSTANCE_STATES)[number]

/**
 * Why an instance is in its state. `disconnected` with a StoppedCause (402/405/409/440 from the network) is
 * not retried until someone calls reconnect; with a LostCause it retries by itself with backoff.
 */
export type InstanceCause =
  | 'created'
  | 'qr_expired'
  | 'waiting_for_scan'
  | 'starting'
  | 'restoring'
  | 'paired'
  | 'restart_required'
  | 'retrying'
  | 'reconnect_requested'
  | 'updating_client_version'
  | 'logged_in'
  | 'reinitialized'
  | LostCause
  | StoppedCause
  | LoggedOutCause

/** The QR code currently shown, as the v1 answer and the qr.update event carry it. */
export interface QrCode {
  /** `data:image/png;base64,...` */
  dataUri: string
  text: string
  expiresAt: number
  count: number
}

/** The last thing that went wrong with the connection, for the UI and the instance operation. */
export interface InstanceError {
  code: number | null
  cause: string
  message: string
  at: number
}

/** The live view of an instance. */
export interface InstanceStatus {
  state: InstanceState
  cause: InstanceCause
  since: number
  linked: boolean
  account: (WaAccount & { avatar: string }) | null
  lastError: InstanceError | null
  /** When the next automatic reconnect happens (disconnected and retrying). */
  nextRetryAt: number | null
  qr: QrCode | null
}
