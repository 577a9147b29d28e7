import type { Timings } from '../config'
import type { Logger } from '../logger'
import type { CloseVerdict, InstanceCause, QrCode, StoppedCause } from '../contract/instance-state'
import type { ReplacedVerdict } from '../contract/coordination'
import type { SessionPort, WaAccount } from '../contract/network'
import { unhandledCase } from '../exhaustive'
import type { CommandChain } from './command-chain'
import type { InstancePorts, KeptStop } from './instance-ports'
import { QrSequence } from './qr-sequence'
import { ReconnectSchedule } from './reconnect-schedule'
import { type StatusReporter, withAvatar } from './status-reporter'

/** What a supervisor is built from: the instance's session, status and chain, and its record's ports. */
export interface SocketSupervisorOptions extends InstancePorts {
  session: SessionPort
  reporter: StatusReporter
  chain: CommandChain
  logger: Logger
  timings: Timings
  now: () => number
  random?: () => number
}

/**
 * How long a connection stays open before its account counts as settled (what a login does right after the
 * open: pre-key upload, its own sessions, the app-state sync, is done); after a first login (a pairing here), the
 * stable-open time instead.
 */
const SETTLE_MS = 10_000

/**
 * The socket side of one instance's state machine (design §5): starts each socket, follows its events (a QR,
 * the pairing, the open, the account), decides what each close means (restart, retry with backoff, wipe,
 * stop, back to idle) and has the resulting state reported. The runtime calls its commands' part (restore,
 * reconnect, …) on its command chain, the session its `on…` methods; what follows an event in the background
 * goes on that chain too, so a command or a shutdown waits for it.
 */
export class SocketSupervisor {
  private readonly schedule: ReconnectSchedule
  private readonly qr: QrSequence
  /** Whether a 405 already led to a new version and one more login since the last open or reconnect. */
  private versionRetried = false
  private stopped = false
  /** The stop kept in the record: a restore leaves the instance stopped while it is set. */
  private kept: KeptStop | null
  /** When this supervisor paired the account (its first login), if it did. */
  private pairedAt: number | undefined
  private readonly session: SessionPort
  private readonly reporter: StatusReporter
  private readonly chain: CommandChain
  private readonly log: Logger
  private readonly now: () => number

  constructor(
    private readonly options: SocketSupervisorOptions,
    kept: KeptStop | null,
  ) {
    const { timings, logger, now } = options
    this.session = options.session
    this.reporter = options.reporter
    this.chain = options.chain
    this.log = logger
    this.now = now
    this.kept = kept
    this.schedule = new ReconnectSchedule(timings, options.random)
    this.qr = new QrSequence({ timings, logger, now, show: (qr) => this.showQr(qr) })
  }

  /** Whether the instance was destroyed or the core shuts down: the socket's events are ignored then. */
  get halted(): boolean {
    return this.stopped
  }

  /**
   * Whether the account may move to another node without cutting what a login does after its open: connected
   * for SETTLE_MS (the stable-open time after a first login here). Never while linking or reconnecting.
   */
  get settled(): boolean {
    const { state, since } = this.reporter.current
    if (state !== 'connected') return false
    const settleMs = this.pairedAt === undefined ? SETTLE_MS : this.options.timings.stableOpenMs
    return this.now() - since >= settleMs
  }

  /** From now on nothing the socket does changes the state (a destroy, the core's shutdown). */
  halt(): void {
    this.stopped = true
  }

  /** Connects a linked instance as the core starts, unless a stop is kept; an unlinked one goes idle. */
  async restore(): Promise<void> {
    const { state } = this.reporter.current
    if (this.stopped || state === 'connected' || state === 'connecting') return
    if (!this.session.linked) {
      await this.options.setLinked(false)
      this.reporter.set('idle', 'created', { linked: false, account: null })
      return
    }
    if (this.kept) {
      this.log.info({ cause: this.kept.cause }, 'not connecting: stopped by the network until a reconnect')
      return
    }
    this.startSocket('restoring')
  }

  /** Starts a new QR wait: a socket whose first QR code counts as the first again. */
  startLinkWait(): void {
    this.qr.restart()
    this.startSocket('starting')
  }

  /** Connects a linked instance now: no backoff, a 405 may try a new version again, a kept stop is cleared. */
  async reconnect(): Promise<void> {
    this.clearRetry()
    this.versionRetried = false
    if (this.kept) {
      // Cleared durably first: from now on a start connects it again.
      this.kept = null
      await this.options.keepStopped(null)
    }
    this.startSocket('reconnect_requested')
  }

  /** Replaces the socket by a new one at once, even an open one (its network route changed). */
  reroute(): void {
    this.clearRetry()
    this.versionRetried = false
    this.startSocket('reconnect_requested')
  }

  /** Logs out (if linked) and wipes the credentials; with a reason, a linked instance is shown logged out. */
  async logoutAndWipe(reason: 'reinitialized' | null): Promise<void> {
    this.clearTimers()
    this.qr.invalidate()
    const wasLinked = this.session.linked
    await this.session.logout()
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    await this.options.setLinked(false)
    this.reporter.amend({ lastError: null })
    if (reason && wasLinked) {
      this.reporter.set('logged_out', reason, { linked: false, account: null, qr: null })
      this.reporter.emit('instance.logged_out', { reason })
    }
  }

  /** Ends the socket and the timers, leaving the stored state as it is (the core's shutdown). */
  end(): void {
    this.clearTimers()
    this.session.end()
  }

  /** The network sent a QR code to show. */
  onQr(text: string): void {
    if (this.stopped) return
    this.qr.received(text)
  }

  /** Shows a rendered QR code of the wait (QrSequence drops one the wait moved past). */
  private showQr(qr: QrCode): void {
    if (this.stopped) return
    this.reporter.set('qr', 'waiting_for_scan', { qr })
    this.reporter.emit('qr.update', {
      qr: qr.dataUri,
      qr_text: qr.text,
      expires_at: Math.floor(qr.expiresAt / 1000),
      count: qr.count,
    })
  }

  /** The phone scanned the QR code (or entered the pairing code): linked, a restart follows. */
  onPaired(): void {
    if (this.stopped) return
    this.pairedAt = this.now()
    this.qr.invalidate()
    // Recorded in the background: the socket's next events must not wait for the write.
    void this.options.setLinked(true)
    this.reporter.set('connecting', 'paired', {
      linked: true,
      qr: null,
      account: withAvatar(this.session.account, ''),
    })
  }

  /** Logged in and open: connected, and the retries count from zero again once the open is stable. */
  onOpen(account: WaAccount): void {
    if (this.stopped) return
    this.versionRetried = false
    this.qr.invalidate()
    this.clearRetry()
    this.schedule.opened()
    const current = this.reporter.current
    if (!current.linked) void this.options.setLinked(true)
    if (this.kept) {
      this.kept = null
      void this.chain.run(() => this.options.keepStopped(null))
    }
    const avatar = current.account?.id === account.id ? current.account.avatar : ''
    this.reporter.set('connected', 'logged_in', {
      linked: true,
      qr: null,
      account: withAvatar(account, avatar),
    })
    this.refreshAvatar()
  }

  /** Reads the account's avatar again (after an open, or when the phone changed the picture). */
  refreshAvatar(): void {
    this.session.profile().then(
      ({ avatar: fresh }) => {
        const { state, account: shown } = this.reporter.current
        if (this.stopped || state !== 'connected' || !shown || shown.avatar === fresh) return
        this.reporter.showAccount({ ...shown, avatar: fresh })
      },
      (error: unknown) => this.log.debug({ err: error }, 'reading the avatar failed'),
    )
  }

  /** Keeps the listed account current (its name often arrives after the connection opened). */
  onAccount(account: WaAccount): void {
    const { linked, account: shown } = this.reporter.current
    // Before the scan completes there is no account to show; paired() and open() show it.
    if (this.stopped || !linked || !shown) return
    if (shown.id === account.id && shown.name === account.name && shown.lid === account.lid) return
    this.reporter.showAccount(withAvatar(account, shown.avatar))
  }

  /** The socket closed by itself: what follows depends on the close's verdict. */
  onClose(verdict: CloseVerdict, detail: string): void {
    if (this.stopped) return
    this.qr.invalidate()
    this.schedule.closed()
    // The 515 restart is a routine step (right after every scan, now and then later): it goes to the log and
    // the cause of `connecting`, never to the last error, which is for closes that need attention.
    if (verdict.action !== 'restart') {
      this.reporter.amend({
        lastError: { code: verdict.code ?? null, cause: verdict.cause, message: detail, at: this.now() },
      })
    }
    this.log.info({ code: verdict.code, cause: verdict.cause, action: verdict.action }, 'connection closed')
    switch (verdict.action) {
      case 'restart':
        this.startSocket('restart_required')
        return
      case 'stop':
        if (verdict.cause === 'client_outdated' && !this.versionRetried) {
          this.versionRetried = true
          this.reporter.set('connecting', 'updating_client_version', { qr: null })
          void this.chain.run(() => this.retryWithNewVersion())
          return
        }
        if (verdict.cause === 'connection_replaced' && this.options.lease) {
          void this.afterReplaced(this.options.lease, verdict.code)
          return
        }
        this.stopFor(verdict.cause, verdict.code)
        return
      case 'logout':
        void this.chain.run(() => this.afterRemoteLogout(verdict.cause))
        return
      case 'qr_expired':
        void this.chain.run(() => this.backToIdle('qr_expired'))
        return
      case 'retry':
        if (this.session.linked) this.scheduleRetry(verdict.cause)
        else void this.chain.run(() => this.backToIdle(verdict.cause))
        return
      default:
        unhandledCase(verdict, 'close verdict')
    }
  }

  /**
   * Replaced by another connection: a cluster node that still holds the instance reconnects with backoff
   * until the coordinator says stop; one that no longer holds it stops quietly (the account runs on the node
   * that does); a single node stops and keeps the cause.
   */
  private async afterReplaced(lease: NonNullable<InstancePorts['lease']>, code: number): Promise<void> {
    const verdict = await lease.afterReplaced().catch((error: unknown): ReplacedVerdict => {
      this.log.warn({ err: error }, 'deciding what follows a 440 failed: stopping here')
      return 'elsewhere'
    })
    if (this.stopped) return
    if (verdict === 'retry') this.scheduleRetry('connection_replaced')
    else if (verdict === 'stop') this.stopFor('connection_replaced', code)
    else this.reporter.set('disconnected', 'connection_replaced', { qr: null, nextRetryAt: null })
  }

  /**
   * The network stopped a linked instance for a reason the operator must act on: it stays disconnected with
   * that cause, kept in its record (written on the chain, so a shutdown waits for it), until a reconnect.
   */
  private stopFor(cause: StoppedCause, code: number | null): void {
    this.clearRetry()
    this.reporter.set('disconnected', cause, { qr: null, nextRetryAt: null })
    if (!this.session.linked) return
    const kept: KeptStop = { cause, code, at: this.now() }
    this.kept = kept
    void this.chain.run(() => this.options.keepStopped(kept))
  }

  /**
   * After a 405 (client version too old): fetch the current version and, if it is a new one, log in once
   * more with it; otherwise stop as client_outdated. A second 405 stops (versionRetried) until an open or
   * a reconnect.
   */
  private async retryWithNewVersion(): Promise<void> {
    const changed = await this.session.refreshVersion()
    if (
      this.stopped ||
      this.reporter.current.state !== 'connecting' ||
      this.reporter.current.cause !== 'updating_client_version'
    )
      return
    if (changed) this.startSocket('updating_client_version')
    else if (this.session.linked)
      this.stopFor('client_outdated', this.reporter.current.lastError?.code ?? null)
    else await this.backToIdle('client_outdated')
  }

  private async afterRemoteLogout(cause: InstanceCause): Promise<void> {
    this.clearTimers()
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    // Durable before it is announced: a restart from now on does not try the wiped link again.
    await this.options.setLinked(false)
    this.reporter.set('logged_out', cause, { linked: false, account: null, qr: null, nextRetryAt: null })
    this.reporter.emit('instance.logged_out', { reason: cause })
  }

  /** An unlinked socket ended: its half-made credentials (a pairing code may have set some) are dropped. */
  private async backToIdle(cause: InstanceCause): Promise<void> {
    if (this.reporter.current.state === 'connected' || this.session.linked) return
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    this.reporter.set('idle', cause, { qr: null, nextRetryAt: null })
  }

  private startSocket(cause: InstanceCause): void {
    this.clearRetry()
    if (this.options.lease && !this.options.lease.mayAct()) {
      // The lease is in doubt (a pause, a slow renewal): tried again later. Should the node have lost the
      // instance, the cluster stops it, and the retry with it.
      this.log.warn({ cause }, 'not connecting: this node does not hold the instance now')
      this.scheduleRetry('connection_replaced')
      return
    }
    this.qr.invalidate()
    this.reporter.set('connecting', cause, { qr: null })
    this.session.connect()
  }

  private scheduleRetry(cause: InstanceCause): void {
    this.clearRetry()
    const delay = this.schedule.nextDelay()
    this.reporter.set('disconnected', cause, { qr: null, nextRetryAt: this.now() + delay })
    this.schedule.retryIn(delay, () => {
      void this.chain.run(() => {
        if (this.stopped || this.reporter.current.state !== 'disconnected' || !this.session.linked) return
        this.startSocket('retrying')
      })
    })
  }

  private clearRetry(): void {
    this.schedule.cancelRetry()
    this.reporter.amend({ nextRetryAt: null })
  }

  private clearTimers(): void {
    this.clearRetry()
    this.schedule.closed()
  }
}
