import type { Timings } from '../config'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { InstanceStatus, QrCode } from '../contract/instance-state'
import type { SessionEvents, SessionPort, WaConnection } from '../contract/network'
import { CommandChain } from './command-chain'
import { networkTimeout, reconnected, refuseUnlessOnTheWay, scannableQr } from './command-waits'
import type { InstancePorts, KeptStop } from './instance-ports'
import { SocketSupervisor } from './socket-supervisor'
import { StatusReporter, withAvatar } from './status-reporter'

export type { KeptStop } from './instance-ports'

export interface InstanceRuntimeOptions extends InstancePorts {
  instanceId: string
  logger: Logger
  timings: Timings
  events: EventSink
  createSession(events: SessionEvents): SessionPort
  random?: () => number
  now?: () => number
}

/** Connection data answered by reconnect: `id` is `<phone>:<device>@s.whatsapp.net`. */
export interface ConnectionData {
  id: string
  name: string
  avatar: string
}

/**
 * One instance (design §5): its commands, its status and the waits for it. Commands are serialized on a
 * per-instance promise chain, so two concurrent calls never build two sockets; the waits for a QR or a
 * connection happen outside the chain. The state machine's socket side (what each socket event and close
 * means) is the SocketSupervisor's; the status and its events are the StatusReporter's.
 */
export class InstanceRuntime {
  private readonly session: SessionPort
  private readonly reporter: StatusReporter
  private readonly chain = new CommandChain()
  private readonly supervisor: SocketSupervisor
  private destroyed = false
  private readonly now: () => number

  constructor(
    private readonly options: InstanceRuntimeOptions,
    linked: boolean,
    kept?: KeptStop,
  ) {
    const { instanceId, logger, events, now = Date.now } = options
    this.now = now
    // The session's events reach the supervisor, built below: a session reports nothing while it is created.
    this.session = options.createSession({
      qr: (text) => this.supervisor.onQr(text),
      paired: () => this.supervisor.onPaired(),
      open: (account) => this.supervisor.onOpen(account),
      account: (account) => this.supervisor.onAccount(account),
      avatarChanged: () => this.supervisor.refreshAvatar(),
      close: (verdict, detail) => this.supervisor.onClose(verdict, detail),
    })
    this.reporter = new StatusReporter({ instanceId, logger, events, now }, this.initialStatus(linked, kept))
    this.supervisor = new SocketSupervisor(
      { ...options, session: this.session, reporter: this.reporter, chain: this.chain, now },
      kept ?? null,
    )
  }

  get instanceId(): string {
    return this.options.instanceId
  }

  /** Whether the account may move to another node now (see SocketSupervisor.settled). */
  get settled(): boolean {
    return this.supervisor.settled
  }

  /** A copy of the current status. */
  get status(): InstanceStatus {
    return this.reporter.snapshot()
  }

  /** Calls `listener` after every status change; returns the unsubscribe function. */
  onChange(listener: (status: InstanceStatus) => void): () => void {
    return this.reporter.onChange(listener)
  }

  /**
   * The messaging operations. An instance on its way to `connected` (see refuseUnlessOnTheWay) is waited
   * for, up to `connectionWaitMs`, so a script sending right after a scan or a restart is not refused for a
   * moment's state; any other state, or no connection in that time, is 409 not_connected.
   */
  async connection(): Promise<WaConnection> {
    const open = () => (this.reporter.current.state === 'connected' ? this.session.connection() : undefined)
    const ready = open()
    if (ready) return ready
    const waitMs = this.options.timings.connectionWaitMs
    const deadline = this.now() + waitMs
    return this.waitFor((status) => open() ?? refuseUnlessOnTheWay(status, deadline), {
      ms: waitMs,
      error: () =>
        new AppError(
          'not_connected',
          `The instance did not connect within ${waitMs / 1000} s (it is ${this.reporter.current.state}): try again later.`,
        ),
    })
  }

  /** Starts linked instances when the core starts; unlinked ones stay idle. */
  restore(): Promise<void> {
    return this.chain.run(() => this.supervisor.restore())
  }

  /** Starts a QR wait (idle or logged out) and answers its first QR; the current one if already waiting. */
  async startScan(): Promise<QrCode> {
    await this.command(() => {
      if (this.session.linked) throw new AppError('already_linked')
      const { state, cause } = this.reporter.current
      if (state === 'qr' || (state === 'connecting' && cause === 'starting')) return
      this.supervisor.startLinkWait()
    })
    return this.waitFor(scannableQr, networkTimeout('a QR code', this.options.timings.operationWaitMs))
  }

  /** Reconnects a linked instance now (skipping any backoff) and answers once connected. */
  async reconnect(): Promise<ConnectionData> {
    await this.command(async () => {
      if (!this.session.linked) throw new AppError('not_linked')
      const { state } = this.reporter.current
      if (state === 'connected' || state === 'connecting') return
      await this.supervisor.reconnect()
    })
    await this.waitFor(reconnected, networkTimeout('the connection', this.options.timings.operationWaitMs))
    const { account, avatar } = await this.session.profile()
    return { id: account.id, name: account.name ?? account.number, avatar }
  }

  /**
   * Replaces the socket of a linked instance by a new one, even while connected (its network route, such as
   * its proxy, changed); answers without waiting for the new one to open.
   */
  async reroute(): Promise<void> {
    await this.command(() => {
      if (this.session.linked) this.supervisor.reroute()
    })
  }

  /** Logs out (if linked), wipes the credentials and starts a new QR wait. */
  reinitialize(): Promise<void> {
    return this.command(async () => {
      await this.supervisor.logoutAndWipe('reinitialized')
      this.supervisor.startLinkWait()
    })
  }

  /** A pairing code for `phone` (digits with country code), shown as XXXX-XXXX; starts a QR wait if needed. */
  async pairingCode(phone: string): Promise<string> {
    if (!this.session.awaitingScan) await this.startScan()
    return this.command(async () => {
      if (this.session.linked) throw new AppError('already_linked')
      if (!this.session.awaitingScan) throw new AppError('conflict', 'The QR wait ended: try again.')
      try {
        const code = await this.session.requestPairingCode(phone)
        return code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code
      } catch (error) {
        throw new AppError('upstream_failed', 'The network did not give a pairing code.', { cause: error })
      }
    })
  }

  /** For destroy: logs out, forgets the credentials and stops for good (the caller deletes the files). */
  destroy(): Promise<void> {
    return this.command(async () => {
      await this.supervisor.logoutAndWipe(null)
      this.supervisor.halt()
      this.destroyed = true
      this.reporter.notify()
    })
  }

  /** Stops the socket and timers without changing the stored state (core shutdown). */
  shutdown(): Promise<void> {
    this.supervisor.halt()
    this.reporter.notify()
    return this.chain.run(() => this.supervisor.end())
  }

  /** Runs a command on the chain; a destroyed or shut-down instance refuses it. */
  private command<T>(work: () => T | Promise<T>): Promise<T> {
    return this.chain.run(() => {
      if (this.supervisor.halted) throw new AppError('instance_not_found')
      return work()
    })
  }

  /** Waits on the status like StatusReporter.waitFor; a destroy or a shutdown ends the wait. */
  private waitFor<T>(
    check: (status: InstanceStatus) => T | undefined,
    timeout: { ms: number; error: () => AppError },
  ): Promise<T> {
    return this.reporter.waitFor((status) => {
      if (this.destroyed) throw new AppError('instance_not_found')
      if (this.supervisor.halted) throw new AppError('unavailable', 'Linkdesk is shutting down.')
      return check(status)
    }, timeout)
  }

  /**
   * The status a start begins in: a linked instance disconnected until its restore, or stopped with the cause
   * kept in its record; an unlinked one idle.
   */
  private initialStatus(linked: boolean, kept: KeptStop | undefined): InstanceStatus {
    const status: InstanceStatus = {
      state: linked ? 'disconnected' : 'idle',
      cause: linked ? 'restoring' : 'created',
      since: this.now(),
      linked,
      account: linked ? withAvatar(this.session.account, '') : null,
      lastError: null,
      nextRetryAt: null,
      qr: null,
    }
    if (linked && kept) {
      status.cause = kept.cause
      status.since = kept.at
      status.lastError = {
        code: kept.code,
        cause: kept.cause,
        message: 'Stopped by the network before this start: reconnect to connect again.',
        at: kept.at,
      }
    }
    return status
  }
}
