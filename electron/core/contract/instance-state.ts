import type { WaAccount } from './network'

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

/** Why a socket closed, in Linkdesk's words, and what the instance must do about it. */
export type CloseVerdict =
  /** 515 after pairing (or now and then later): reconnect at once with the same credentials. */
  | { action: 'restart'; code: number; cause: 'restart_required' }
  /** The link is dead: wipe the credentials; a new scan is needed. */
  | { action: 'logout'; code: number; cause: LoggedOutCause }
  /** The link may still be good, but reconnecting now would not help: stop and say why. */
  | { action: 'stop'; code: number; cause: StoppedCause }
  /** The QR codes of this socket ran out unscanned. */
  | { action: 'qr_expired'; code: number; cause: 'qr_expired' }
  /** The connection was lost; the credentials are fine: reconnect with backoff. */
  | { action: 'retry'; code: number | undefined; cause: LostCause }

export type LoggedOutCause =
  | 'device_removed'
  | 'credentials_rejected'
  | 'logged_out'
  | 'account_locked'
  | 'multidevice_mismatch'
  | 'account_banned'
export type StoppedCause = 'temporarily_banned' | 'client_outdated' | 'bad_user_agent' | 'connection_replaced'
export type LostCause =
  | 'connection_lost'
  | 'connection_closed'
  | 'server_error'
  | 'service_unavailable'
  | 'network_error'
  | 'proxy_unreachable'
