import type { Timings } from '../config'
import { AppError } from '../errors'
import type { EventData, EventName } from '../contract/event-catalogue'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { CloseVerdict, StoppedCause } from '../contract/instance-state'
import type { ReplacedVerdict } from '../contract/coordination'
import type { SessionEvents, SessionPort, WaAccount, WaConnection } from '../contract/network'
import { backoffDelay } from './backoff'
import type { InstanceCause, InstanceState, InstanceStatus, QrCode } from '../contract/instance-state'
import { qrDataUri } from './qr-image'
import { NOT_LINKED_YET } from './live-connections'
import { unhandledCase } from '../exhaustive'

export interface InstanceRuntimeOptions {
  instanceId: string
  logger: Logger
  timings: Timings
  events: EventSink
  createSession(events: SessionEvents): SessionPort
  /** Deletes the instance's stored credentials (after the session forgot them). */
  wipeCredentials(): Promise<void>
  /**
   * Records whether the instance is linked, so the next start restores it; resolves once durable (a failure
   * is reported there, never rejected).
   */
  setLinked(linked: boolean): Promise<void>
  /**
   * Keeps why the network stopped the instance (null: clears it), so the next start does not connect it;
   * resolves once durable (a failure is reported there, never rejected).
   */
  keepStopped(stop: KeptStop | null): Promise<void>
  /**
   * Whether this node may act for the instance now (checked before every socket connect), and what it does
   * after a 440 "replaced" (Coordinator.afterReplaced). Without it: always, and stop.
   */
  lease?: { mayAct(): boolean; afterReplaced(): Promise<ReplacedVerdict> }
  random?: () => number
  now?: () => number
}

/** Why the network stopped an instance, kept in its record until the operator's reconnect or its next open. */
export interface KeptStop {
  cause: StoppedCause
  code: number | null
  at: number
}

/** Connection data answered by reconnect: `id` is `<phone>:<device>@s.whatsapp.net`. */
export interface ConnectionData {
  id: string
  name: string
  avatar: string
}

const FIRST_QR_LIFETIME_MS = 60_000
const NEXT_QR_LIFETIME_MS = 20_000
/**
 * How long a connection stays open before its account counts as settled (what a login does right after the
 * open: pre-key upload, its own sessions, the app-state sync, is done); after a first login (a pairing here), the
 * stable-open time instead.
 */
const SETTLE_MS = 10_000

/**
 * One instance's state machine (design §5): holds the true state and its cause, decides what each socket
 * close means (restart, retry with backoff, wipe, stop, back to idle), and emits the state as events.
 * Commands are serialized on a per-instance promise chain, so two concurrent calls never build two sockets;
 * the waits for a QR or a connection happen outside the chain.
 */
export class InstanceRuntime {
  private readonly session: SessionPort
  private current: InstanceStatus
  private chain: Promise<unknown> = Promise.resolve()
  private readonly listeners = new Set<(status: InstanceStatus) => void>()
  private attempt = 0
  /** Whether a 405 already led to a new version and one more login since the last open or reconnect. */
  private versionRetried = false
  private retryTimer: NodeJS.Timeout | undefined
  private stableTimer: NodeJS.Timeout | undefined
  private qrCount = 0
  /** Bumped whenever a pending QR image must not be shown any more. */
  private qrGeneration = 0
  private stopped = false
  private destroyed = false
  /** The stop kept in the record: a restore leaves the instance stopped while it is set. */
  private kept: KeptStop | null
  private readonly log: Logger
  private readonly now: () => number
  /** When this runtime paired the account (its first login), if it did. */
  private pairedAt: number | undefined

  constructor(
    private readonly options: InstanceRuntimeOptions,
    linked: boolean,
    kept?: KeptStop,
  ) {
    this.log = options.logger
    this.now = options.now ?? Date.now
    this.session = options.createSession({
      qr: (text) => this.onQr(text),
      paired: () => this.onPaired(),
      open: (account) => this.onOpen(account),
      account: (account) => this.onAccount(account),
      avatarChanged: () => this.refreshAvatar(),
      close: (verdict, detail) => this.onClose(verdict, detail),
    })
    this.current = {
      state: linked ? 'disconnected' : 'idle',
      cause: linked ? 'restoring' : 'created',
      since: this.now(),
      linked,
      account: null,
      lastError: null,
      nextRetryAt: null,
      qr: null,
    }
    if (linked) this.current.account = this.withAvatar(this.session.account, '')
    this.kept = kept ?? null
    if (linked && kept) {
      this.current.cause = kept.cause
      this.current.since = kept.at
      this.current.lastError = {
        code: kept.code,
        cause: kept.cause,
        message: 'Stopped by the network before this start: reconnect to connect again.',
        at: kept.at,
      }
    }
  }

  get instanceId(): string {
    return this.options.instanceId
  }

  /** A copy of the current status. */
  /**
   * Whether the account may move to another node without cutting what a login does after its open: connected
   * for SETTLE_MS (the stable-open time after a first login here). Never while linking or reconnecting.
   */
  get settled(): boolean {
    if (this.current.state !== 'connected') return false
    const settleMs = this.pairedAt === undefined ? SETTLE_MS : this.options.timings.stableOpenMs
    return this.now() - this.current.since >= settleMs
  }

  get status(): InstanceStatus {
    return structuredClone(this.current)
  }

  /** Calls `listener` after every status change; returns the unsubscribe function. */
  onChange(listener: (status: InstanceStatus) => void): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /**
   * The messaging operations. An instance on its way to `connected` (see onTheWay) is waited for, up to
   * `connectionWaitMs`, so a script sending right after a scan or a restart is not refused for a moment's
   * state; any other state, or no connection in that time, is 409 not_connected.
   */
  async connection(): Promise<WaConnection> {
    const open = () => (this.current.state === 'connected' ? this.session.connection() : undefined)
    const ready = open()
    if (ready) return ready
    const waitMs = this.options.timings.connectionWaitMs
    const deadline = this.now() + waitMs
    return this.waitFor(
      (status) => {
        const connection = open()
        if (connection) return connection
        if (!this.onTheWay(status, deadline))
          throw new AppError('not_connected', status.linked ? undefined : NOT_LINKED_YET)
        return undefined
      },
      {
        ms: waitMs,
        error: () =>
          new AppError(
            'not_connected',
            `The instance did not connect within ${waitMs / 1000} s (it is ${this.current.state}): try again later.`,
          ),
      },
    )
  }

  /** Starts linked instances when the core starts; unlinked ones stay idle. */
  restore(): Promise<void> {
    return this.serial(async () => {
      if (this.stopped || this.current.state === 'connected' || this.current.state === 'connecting') return
      if (!this.session.linked) {
        await this.options.setLinked(false)
        this.setState('idle', 'created', { linked: false, account: null })
        return
      }
      if (this.kept) {
        this.log.info({ cause: this.kept.cause }, 'not connecting: stopped by the network until a reconnect')
        return
      }
      this.startSocket('restoring')
    })
  }

  /** Starts a QR wait (idle or logged out) and answers its first QR; the current one if already waiting. */
  async startScan(): Promise<QrCode> {
    await this.command(() => {
      if (this.session.linked) throw new AppError('already_linked')
      if (
        this.current.state === 'qr' ||
        (this.current.state === 'connecting' && this.current.cause === 'starting')
      ) {
        return
      }
      this.qrCount = 0
      this.startSocket('starting')
    })
    return this.waitFor((status) => {
      if (status.qr) return status.qr
      if (status.linked) throw new AppError('already_linked')
      if (status.state === 'idle' || status.state === 'logged_out') {
        throw new AppError('upstream_failed', `The QR wait ended: ${status.cause.replace(/_/g, ' ')}.`)
      }
      return undefined
    }, this.networkTimeout('a QR code'))
  }

  /** Reconnects a linked instance now (skipping any backoff) and answers once connected. */
  async reconnect(): Promise<ConnectionData> {
    await this.command(async () => {
      if (!this.session.linked) throw new AppError('not_linked')
      if (this.current.state === 'connected' || this.current.state === 'connecting') return
      this.clearRetry()
      this.versionRetried = false
      if (this.kept) {
        // Cleared durably first: from now on a start connects it again.
        this.kept = null
        await this.options.keepStopped(null)
      }
      this.startSocket('reconnect_requested')
    })
    await this.waitFor((status) => {
      if (status.state === 'connected') return true
      if (!status.linked)
        throw new AppError('not_linked', 'The phone removed this device: scan a new QR code.')
      if (status.state === 'disconnected' && status.nextRetryAt === null && status.cause !== 'restoring') {
        throw new AppError(
          'upstream_failed',
          `The network refused the connection: ${status.cause.replace(/_/g, ' ')}.`,
        )
      }
      return undefined
    }, this.networkTimeout('the connection'))
    const { account, avatar } = await this.session.profile()
    return { id: account.id, name: account.name ?? account.number, avatar }
  }

  /**
   * Replaces the socket of a linked instance by a new one, even while connected (its network route, such as
   * its proxy, changed); answers without waiting for the new one to open.
   */
  async reroute(): Promise<void> {
    await this.command(() => {
      if (!this.session.linked) return
      this.clearRetry()
      this.versionRetried = false
      this.startSocket('reconnect_requested')
    })
  }

  /** Logs out (if linked), wipes the credentials and starts a new QR wait. */
  reinitialize(): Promise<void> {
    return this.command(async () => {
      await this.logoutAndWipe('reinitialized')
      this.qrCount = 0
      this.startSocket('starting')
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
      await this.logoutAndWipe(null)
      this.stopped = true
      this.destroyed = true
      this.notify()
    })
  }

  /** Stops the socket and timers without changing the stored state (core shutdown). */
  shutdown(): Promise<void> {
    this.stopped = true
    this.notify()
    return this.serial(() => {
      this.clearTimers()
      this.session.end()
    })
  }

  /** Runs a command on the chain; a destroyed or shut-down instance refuses it. */
  private command<T>(work: () => T | Promise<T>): Promise<T> {
    return this.serial(() => {
      if (this.stopped) throw new AppError('instance_not_found')
      return work()
    })
  }

  private serial<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.chain.then(work, work)
    this.chain = run.catch(() => undefined)
    return run
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
    this.qrGeneration += 1
    this.setState('connecting', cause, { qr: null })
    this.session.connect()
  }

  private async logoutAndWipe(reason: 'reinitialized' | null): Promise<void> {
    this.clearTimers()
    this.qrGeneration += 1
    const wasLinked = this.session.linked
    await this.session.logout()
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    await this.options.setLinked(false)
    this.current.lastError = null
    if (reason && wasLinked) {
      this.setState('logged_out', reason, { linked: false, account: null, qr: null })
      this.emit('instance.logged_out', { reason })
    }
  }

  private onQr(text: string): void {
    if (this.stopped) return
    this.qrCount += 1
    const count = this.qrCount
    const generation = this.qrGeneration
    const lifetime =
      this.options.timings.qrTimeoutMs || (count === 1 ? FIRST_QR_LIFETIME_MS : NEXT_QR_LIFETIME_MS)
    const expiresAt = this.now() + lifetime
    qrDataUri(text).then(
      (dataUri) => {
        if (this.stopped || generation !== this.qrGeneration) return
        const qr: QrCode = { dataUri, text, expiresAt, count }
        this.setState('qr', 'waiting_for_scan', { qr })
        this.emit('qr.update', {
          qr: dataUri,
          qr_text: text,
          expires_at: Math.floor(expiresAt / 1000),
          count,
        })
      },
      (error: unknown) => this.log.error({ err: error }, 'QR image failed'),
    )
  }

  private onPaired(): void {
    if (this.stopped) return
    this.pairedAt = this.now()
    this.qrGeneration += 1
    // Recorded in the background: the socket's next events must not wait for the write.
    void this.options.setLinked(true)
    this.setState('connecting', 'paired', {
      linked: true,
      qr: null,
      account: this.withAvatar(this.session.account, ''),
    })
  }

  private onOpen(account: WaAccount): void {
    if (this.stopped) return
    this.versionRetried = false
    this.qrGeneration += 1
    this.clearRetry()
    clearTimeout(this.stableTimer)
    this.stableTimer = setTimeout(() => (this.attempt = 0), this.options.timings.stableOpenMs)
    if (!this.current.linked) void this.options.setLinked(true)
    if (this.kept) {
      this.kept = null
      void this.serial(() => this.options.keepStopped(null))
    }
    const avatar = this.current.account?.id === account.id ? this.current.account.avatar : ''
    this.setState('connected', 'logged_in', {
      linked: true,
      qr: null,
      account: this.withAvatar(account, avatar),
    })
    this.refreshAvatar()
  }

  /** Reads the account's avatar again (after an open, or when the phone changed the picture). */
  private refreshAvatar(): void {
    this.session.profile().then(
      ({ avatar: fresh }) => {
        const shown = this.current.account
        if (this.stopped || this.current.state !== 'connected' || !shown || shown.avatar === fresh) return
        shown.avatar = fresh
        this.notify()
        this.emit('instance.updated', { changed: ['account'] })
      },
      (error: unknown) => this.log.debug({ err: error }, 'reading the avatar failed'),
    )
  }

  /** Keeps the listed account current (its name often arrives after the connection opened). */
  private onAccount(account: WaAccount): void {
    const shown = this.current.account
    // Before the scan completes there is no account to show; paired() and open() show it.
    if (this.stopped || !this.current.linked || !shown) return
    if (shown.id === account.id && shown.name === account.name && shown.lid === account.lid) return
    this.current.account = this.withAvatar(account, shown.avatar)
    this.notify()
    this.emit('instance.updated', { changed: ['account'] })
  }

  private onClose(verdict: CloseVerdict, detail: string): void {
    if (this.stopped) return
    this.qrGeneration += 1
    clearTimeout(this.stableTimer)
    // The 515 restart is a routine step (right after every scan, now and then later): it goes to the log and
    // the cause of `connecting`, never to the last error, which is for closes that need attention.
    if (verdict.action !== 'restart') {
      this.current.lastError = {
        code: verdict.code ?? null,
        cause: verdict.cause,
        message: detail,
        at: this.now(),
      }
    }
    this.log.info({ code: verdict.code, cause: verdict.cause, action: verdict.action }, 'connection closed')
    switch (verdict.action) {
      case 'restart':
        this.startSocket('restart_required')
        return
      case 'stop':
        if (verdict.cause === 'client_outdated' && !this.versionRetried) {
          this.versionRetried = true
          this.setState('connecting', 'updating_client_version', { qr: null })
          void this.serial(() => this.retryWithNewVersion())
          return
        }
        if (verdict.cause === 'connection_replaced' && this.options.lease) {
          void this.afterReplaced(this.options.lease, verdict.code)
          return
        }
        this.stopFor(verdict.cause, verdict.code)
        return
      case 'logout':
        void this.serial(() => this.afterRemoteLogout(verdict.cause))
        return
      case 'qr_expired':
        void this.serial(() => this.backToIdle('qr_expired'))
        return
      case 'retry':
        if (this.session.linked) this.scheduleRetry(verdict.cause)
        else void this.serial(() => this.backToIdle(verdict.cause))
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
  private async afterReplaced(
    lease: NonNullable<InstanceRuntimeOptions['lease']>,
    code: number,
  ): Promise<void> {
    const verdict = await lease.afterReplaced().catch((error: unknown): ReplacedVerdict => {
      this.log.warn({ err: error }, 'deciding what follows a 440 failed: stopping here')
      return 'elsewhere'
    })
    if (this.stopped) return
    if (verdict === 'retry') this.scheduleRetry('connection_replaced')
    else if (verdict === 'stop') this.stopFor('connection_replaced', code)
    else this.setState('disconnected', 'connection_replaced', { qr: null, nextRetryAt: null })
  }

  /**
   * The network stopped a linked instance for a reason the operator must act on: it stays disconnected with
   * that cause, kept in its record (written on the chain, so a shutdown waits for it), until a reconnect.
   */
  private stopFor(cause: StoppedCause, code: number | null): void {
    this.clearRetry()
    this.setState('disconnected', cause, { qr: null, nextRetryAt: null })
    if (!this.session.linked) return
    const kept: KeptStop = { cause, code, at: this.now() }
    this.kept = kept
    void this.serial(() => this.options.keepStopped(kept))
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
      this.current.state !== 'connecting' ||
      this.current.cause !== 'updating_client_version'
    )
      return
    if (changed) this.startSocket('updating_client_version')
    else if (this.session.linked) this.stopFor('client_outdated', this.current.lastError?.code ?? null)
    else await this.backToIdle('client_outdated')
  }

  private async afterRemoteLogout(cause: InstanceCause): Promise<void> {
    this.clearTimers()
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    // Durable before it is announced: a restart from now on does not try the wiped link again.
    await this.options.setLinked(false)
    this.setState('logged_out', cause, { linked: false, account: null, qr: null, nextRetryAt: null })
    this.emit('instance.logged_out', { reason: cause })
  }

  /** An unlinked socket ended: its half-made credentials (a pairing code may have set some) are dropped. */
  private async backToIdle(cause: InstanceCause): Promise<void> {
    if (this.current.state === 'connected' || this.session.linked) return
    this.session.forgetCredentials()
    await this.options.wipeCredentials()
    this.setState('idle', cause, { qr: null, nextRetryAt: null })
  }

  private scheduleRetry(cause: InstanceCause): void {
    this.clearRetry()
    const { reconnectBaseMs, reconnectMaxMs } = this.options.timings
    const delay = backoffDelay(this.attempt, reconnectBaseMs, reconnectMaxMs, this.options.random)
    this.attempt += 1
    this.setState('disconnected', cause, { qr: null, nextRetryAt: this.now() + delay })
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      void this.serial(() => {
        if (this.stopped || this.current.state !== 'disconnected' || !this.session.linked) return
        this.startSocket('retrying')
      })
    }, delay)
  }

  private clearRetry(): void {
    clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.current.nextRetryAt = null
  }

  private clearTimers(): void {
    this.clearRetry()
    clearTimeout(this.stableTimer)
  }

  private withAvatar(account: WaAccount | undefined, avatar: string): InstanceStatus['account'] {
    return account ? { ...account, avatar } : null
  }

  private setState(state: InstanceState, cause: InstanceCause, patch: Partial<InstanceStatus> = {}): void {
    const previous = this.current.state
    const changed = previous !== state || this.current.cause !== cause
    this.current = {
      ...this.current,
      ...patch,
      state,
      cause,
      since: changed ? this.now() : this.current.since,
    }
    if (state !== 'disconnected') this.current.nextRetryAt = null
    if (changed) {
      this.log.info({ state, previous, cause }, 'state changed')
      if (previous !== state)
        this.emit('connection.update', { state, previous_state: previous, reason: cause })
    }
    this.notify()
  }

  private notify(): void {
    const status = this.status
    for (const listener of this.listeners) {
      try {
        listener(status)
      } catch (error) {
        this.log.error({ err: error }, 'status listener failed')
      }
    }
  }

  private emit<E extends EventName>(event: E, data: EventData<E>): void {
    try {
      this.options.events.emit(this.options.instanceId, event, data)
    } catch (error) {
      this.log.error({ err: error, event }, 'emitting an event failed')
    }
  }

  /**
   * Whether an instance that is not connected is expected to be so shortly by itself: it is linked and
   * connecting, waiting for its staggered restore, or retrying before `deadline`. A QR wait, a logout or a
   * stop (such as 405 or 440) will not connect without the user.
   */
  private onTheWay(status: InstanceStatus, deadline: number): boolean {
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

  /** How long generate_qrcode and reconnect wait for the network. */
  private networkTimeout(what: string): { ms: number; error: () => AppError } {
    return {
      ms: this.options.timings.operationWaitMs,
      error: () => new AppError('upstream_timeout', `The network did not give ${what} in time.`),
    }
  }

  /** Resolves with the first defined result of `check`, now or at a later status; rejects after the timeout. */
  private waitFor<T>(
    check: (status: InstanceStatus) => T | undefined,
    timeout: { ms: number; error: () => AppError },
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let unsubscribe: () => void = () => undefined
      const timer = setTimeout(() => {
        unsubscribe()
        reject(timeout.error())
      }, timeout.ms)
      const test = (status: InstanceStatus) => {
        try {
          if (this.destroyed) throw new AppError('instance_not_found')
          if (this.stopped) throw new AppError('unavailable', 'Linkdesk is shutting down.')
          const result = check(status)
          if (result === undefined) return
          clearTimeout(timer)
          unsubscribe()
          resolve(result)
        } catch (error) {
          clearTimeout(timer)
          unsubscribe()
          reject(error)
        }
      }
      unsubscribe = this.onChange(test)
      test(this.status)
    })
  }
}
