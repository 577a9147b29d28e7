import type { Principal } from '../contract/principal'
import type { Timings } from '../config'
import { type Coordinator, leaseLost } from '../contract/coordination'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { AuthStore } from '../store/auth-store'
import type { InstanceRecord } from '../store/settings-store'
import type { OpenSession } from '../contract/network'
import { parseProxyUrl } from '../contract/proxy'
import type { InstanceRegistry } from './instance-registry'
import { BEHAVIOURS, type InstanceBehaviours } from '../contract/instance'
import { behavioursOf, instanceName } from './instance-settings'
import { type ConnectionData, InstanceRuntime } from './instance-runtime'
import type { InstanceStatus, QrCode } from '../contract/instance-state'
import type { LiveConnections } from './live-connections'

export interface InstanceManagerOptions {
  logger: Logger
  timings: Timings
  /** Where state changes and instance.destroyed go. */
  events: EventSink
  registry: InstanceRegistry
  authStore: AuthStore
  /** Opens an instance's session on the network (the wa adapter, through the instance's proxy as set now). */
  openSession: OpenSession
  /** Refuses a proxy the network cannot be reached through (a new proxy is checked before it is kept). */
  checkProxy(proxy: string): Promise<void>
  /** Drops what the messages part keeps for a destroyed instance (its messages, media and queued sends). */
  forgetMessages(instanceId: string): Promise<void>
  /**
   * Which instances this node may run: only those run here (in a cluster `adopt` and `part` follow the
   * coordinator's decisions); the others' statuses are the ones their owners reported.
   */
  coordinator: Coordinator
  /** Where every running instance is listed, for the messages part to reach its connection. */
  connections: LiveConnections
  /** The parts that follow the instances (given here, so nothing is attached afterwards). */
  observers?: readonly InstanceObserver[]
}

/** What another part does when an instance's status or settings change, or when it is destroyed. */
export interface InstanceObserver {
  status?(instanceId: string, status: InstanceStatus): void
  settingsChanged?(instanceId: string, record: InstanceRecord): void
  /** After the instance was destroyed and replaced by a fresh one (`newId`), or deleted (`newId` null). */
  destroyed?(oldId: string, newId: string | null): void
}

type StatusListener = (instanceId: string, status: InstanceStatus) => void
type DestroyedListener = (oldId: string, newId: string | null) => void

/**
 * The live instances: one state machine (and Baileys adapter) per registry record, created on first use,
 * restored at start when linked, staggered. Callers resolve the instance for their caller first (the API's
 * InstanceAccess); an id with no record is instance_not_found here too.
 */
export class InstanceManager {
  private readonly runtimes = new Map<string, InstanceRuntime>()
  /** Subscribers from outside the core (the desktop shell, tests); the core's own parts are `observers`. */
  private readonly statusListeners = new Set<StatusListener>()
  private readonly destroyedListeners = new Set<DestroyedListener>()
  private readonly observers: readonly InstanceObserver[]
  private readonly restoreTimers = new Set<NodeJS.Timeout>()
  private readonly events: EventSink
  private closed = false
  /** When the next adopted instance may connect (adoptions are staggered like the restore at start). */
  private nextConnectAt = 0
  private readonly log: Logger

  constructor(private readonly options: InstanceManagerOptions) {
    this.events = options.events
    this.log = options.logger.child({ module: 'instances' })
    this.observers = options.observers ?? []
    // The linked instances this node restores run from the start (disconnected, restoring), so a send made
    // before their turn to connect waits for it.
    for (const instanceId of this.restoredHere()) this.runtime(instanceId)
  }

  /** Restarts every linked instance, one every `restoreStaggerMs`, so many accounts do not connect at once. */
  restoreAll(): void {
    const linked = this.restoredHere()
    linked.forEach((instanceId, index) => {
      const timer = setTimeout(() => {
        this.restoreTimers.delete(timer)
        if (this.closed || !this.options.registry.find(instanceId)) return
        this.runtime(instanceId)
          .restore()
          .catch((error: unknown) => this.log.error({ err: error, instanceId }, 'restore failed'))
      }, index * this.options.timings.restoreStaggerMs)
      this.restoreTimers.add(timer)
    })
    if (linked.length > 0) this.log.info({ count: linked.length }, 'restoring linked instances')
  }

  /** The linked instances this node restores itself (in a cluster none: they come as it acquires them). */
  private restoredHere(): readonly string[] {
    const linked = this.options.registry.all().filter((record) => record.linked)
    return this.options.coordinator.restoredHere(linked.map((record) => record.id))
  }

  /**
   * In a cluster, once this node holds the instance: its credentials are read again (a peer may have changed
   * them) and, if linked, it connects, staggered after the other adoptions.
   */
  async adopt(instanceId: string): Promise<void> {
    if (this.closed || !this.options.registry.find(instanceId)) return
    // Whatever ran here for it before started from what was stored then: its keys are read again.
    await this.part(instanceId)
    await this.options.authStore.reload(instanceId)
    // Built here, once its record and keys are read again: nothing else builds it while the handover runs.
    const runtime = this.build(instanceId)
    this.log.info({ instanceId, linked: runtime.status.linked }, 'instance adopted')
    if (!runtime.status.linked) return
    const now = Date.now()
    const at = Math.max(now, this.nextConnectAt)
    // Jittered around the stagger: hundreds of takeovers at once do not reconnect in lockstep.
    this.nextConnectAt = at + Math.round(this.options.timings.restoreStaggerMs * (0.5 + Math.random()))
    const timer = setTimeout(() => {
      this.restoreTimers.delete(timer)
      if (this.closed || this.runtimes.get(instanceId) !== runtime) return
      runtime
        .restore()
        .catch((error: unknown) => this.log.error({ err: error, instanceId }, 'restore failed'))
    }, at - now)
    this.restoreTimers.add(timer)
  }

  /** Whether the instance runs here connected and settled (see InstanceRuntime.settled): it may move now. */
  settled(instanceId: string): boolean {
    return this.runtimes.get(instanceId)?.settled ?? false
  }

  /** In a cluster, once this node no longer holds the instance: its socket ends here, quietly. */
  async part(instanceId: string): Promise<void> {
    const runtime = this.runtimes.get(instanceId)
    if (!runtime) return
    this.drop(instanceId, runtime)
    await runtime.shutdown()
    await this.options.authStore.reload(instanceId)
  }

  /** A new instance owned by the caller (and for the chosen `tokens`), announced by `instance.created`. */
  async create(owner: Principal, name?: string, tokens: readonly string[] = []): Promise<InstanceRecord> {
    const record = await this.options.registry.create(
      owner,
      name === undefined ? undefined : instanceName(name),
      tokens,
    )
    await this.options.coordinator.adoptNew(record.id)
    this.announceCreated(record, null)
    return record
  }

  /**
   * Renames an instance, changes its behaviours or its proxy; announced by `instance.updated` naming what
   * changed. Bad values (and a proxy that cannot be reached) are refused before anything is kept; a new proxy
   * takes effect at once: a connected instance reconnects through it.
   */
  async updateSettings(
    instanceId: string,
    change: { name?: string; behaviours?: Partial<InstanceBehaviours>; proxy?: string },
  ): Promise<InstanceRecord> {
    const name = change.name === undefined ? undefined : instanceName(change.name)
    const behaviours = change.behaviours ?? {}
    // `none` (or an empty value) removes the proxy.
    const cleared = change.proxy !== undefined && ['', 'none'].includes(change.proxy.trim().toLowerCase())
    const proxy = change.proxy === undefined ? undefined : cleared ? '' : parseProxyUrl(change.proxy)
    const changed: Array<'name' | 'behaviours' | 'proxy'> = []
    if (name !== undefined) changed.push('name')
    if (Object.values(behaviours).some((value) => value !== undefined)) changed.push('behaviours')
    if (proxy !== undefined) changed.push('proxy')
    if (changed.length === 0) {
      throw new AppError(
        'missing_parameter',
        `Give name, proxy or a behaviour to change (${BEHAVIOURS.join(', ')}).`,
        { details: { parameters: ['name', 'proxy', ...BEHAVIOURS] } },
      )
    }
    if (proxy) await this.options.checkProxy(proxy)
    const defined = Object.fromEntries(Object.entries(behaviours).filter(([, value]) => value !== undefined))
    const before = this.options.registry.find(instanceId)
    const record = await this.options.registry.update(instanceId, (current) => {
      const { proxy: _previous, ...rest } = current
      const nextProxy = proxy === undefined ? current.proxy : proxy || undefined
      return {
        ...rest,
        ...(name === undefined ? {} : { name }),
        ...(nextProxy ? { proxy: nextProxy } : {}),
        behaviours: { ...behavioursOf(current), ...defined },
      }
    })
    this.options.events.emit(instanceId, 'instance.updated', { changed })
    for (const observer of this.observers) observer.settingsChanged?.(instanceId, record)
    if (proxy !== undefined && before?.proxy !== record.proxy) this.reroute(instanceId)
    return record
  }

  /** A running linked instance reconnects through its new proxy (or directly). */
  private reroute(instanceId: string): void {
    const runtime = this.runtimes.get(instanceId)
    const state = runtime?.status.state
    if (!runtime?.status.linked || state === 'idle' || state === 'logged_out') return
    runtime
      .reroute()
      .catch((error: unknown) =>
        this.log.warn({ err: error, instanceId }, 'reconnecting through the new proxy failed'),
      )
  }

  /**
   * The live status of an existing instance (in a cluster, of one held elsewhere: as its owner reported it; of
   * one changing hands here: as stored, until it is started or gone).
   */
  status(instanceId: string): InstanceStatus {
    const { coordinator, registry } = this.options
    if (this.runtimes.has(instanceId)) return this.runtime(instanceId).status
    const record = registry.find(instanceId)
    if (!record) throw new AppError('instance_not_found')
    if (coordinator.handover(instanceId)) return elsewhere(record)
    if (!coordinator.mayAct(instanceId)) return coordinator.reportedStatus(instanceId) ?? elsewhere(record)
    return this.runtime(instanceId).status
  }

  async generateQr(instanceId: string): Promise<QrCode> {
    return (await this.started(instanceId)).startScan()
  }

  async reconnect(instanceId: string): Promise<ConnectionData> {
    return (await this.started(instanceId)).reconnect()
  }

  async reinitialize(instanceId: string): Promise<void> {
    return (await this.started(instanceId)).reinitialize()
  }

  async pairingCode(instanceId: string, phone: string): Promise<string> {
    return (await this.started(instanceId)).pairingCode(phone)
  }

  /**
   * Logs the instance out, deletes its files, replaces its record by a fresh one with a new id (same owner)
   * and answers that id. `instance.destroyed` goes out under the old id before its record disappears.
   */
  async destroy(instanceId: string): Promise<string> {
    await this.tearDown(instanceId, 'destroyed')
    const record = await this.options.registry.replace(instanceId)
    await this.options.coordinator.adoptNew(record.id)
    await this.options.coordinator.dropped(instanceId)
    this.log.info({ instanceId, newInstanceId: record.id }, 'instance destroyed')
    this.announceCreated(record, instanceId)
    this.announceGone(instanceId, record.id)
    return record.id
  }

  /**
   * Logs the instance out, deletes its files and its record, with nothing in its place (delete_instance).
   * `instance.destroyed` (reason `deleted`) goes out under its id before its record disappears.
   */
  async delete(instanceId: string): Promise<void> {
    await this.tearDown(instanceId, 'deleted')
    await this.options.registry.remove(instanceId)
    await this.options.coordinator.dropped(instanceId)
    this.log.info({ instanceId }, 'instance deleted')
    this.announceGone(instanceId, null)
  }

  /** What destroy and delete share: logged out, announced, its credentials and messages dropped. */
  private async tearDown(instanceId: string, reason: 'destroyed' | 'deleted'): Promise<void> {
    const runtime = await this.started(instanceId)
    await runtime.destroy()
    try {
      this.events.emit(instanceId, 'instance.destroyed', { reason })
      // Its record and outbox entry are durable before the record it names goes (without a journal, at the commit).
      await this.events.durable()
    } catch (error) {
      this.log.error({ err: error, instanceId }, 'emitting instance.destroyed failed')
    }
    this.drop(instanceId, runtime)
    await this.options.authStore.remove(instanceId)
    await this.options
      .forgetMessages(instanceId)
      .catch((error: unknown) => this.log.error({ err: error, instanceId }, 'dropping the messages failed'))
  }

  private announceGone(instanceId: string, newId: string | null): void {
    for (const observer of this.observers) observer.destroyed?.(instanceId, newId)
    for (const listener of this.destroyedListeners) listener(instanceId, newId)
  }

  private announceCreated(record: InstanceRecord, replaces: string | null): void {
    try {
      this.events.emit(record.id, 'instance.created', {
        created_at: Math.floor(record.createdAt / 1000),
        replaces,
      })
    } catch (error) {
      this.log.error({ err: error, instanceId: record.id }, 'emitting instance.created failed')
    }
  }

  /** Calls `listener` after every status change of any instance. */
  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  /** Calls `listener` when an instance is destroyed, so a shell can drop what it shows of it. */
  onDestroyed(listener: DestroyedListener): () => void {
    this.destroyedListeners.add(listener)
    return () => this.destroyedListeners.delete(listener)
  }

  /** Ends every socket and timer; the stored state stays for the next start. */
  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.restoreTimers) clearTimeout(timer)
    this.restoreTimers.clear()
    this.options.connections.close()
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.shutdown()))
    for (const [instanceId, runtime] of [...this.runtimes]) this.drop(instanceId, runtime)
    await this.options.authStore.close()
  }

  /** Forgets a run of the instance: it is no longer listed among the live connections. */
  private drop(instanceId: string, runtime: InstanceRuntime): void {
    if (this.runtimes.get(instanceId) === runtime) this.runtimes.delete(instanceId)
    this.options.connections.unlist(instanceId, runtime)
  }

  /**
   * Records whether the instance is linked. Never "not linked" while credentials are stored (a session that
   * read its keys before they were loaded would otherwise unlink an account that is linked, for every node).
   */
  private async recordLinked(instanceId: string, linked: boolean, log: Logger): Promise<void> {
    try {
      if (!linked && (await this.options.authStore.exists(instanceId))) {
        log.warn('credentials are stored: the record stays linked')
        return
      }
      await this.options.registry.setLinked(instanceId, linked)
    } catch (error) {
      log.error({ err: error }, 'recording whether it is linked failed')
    }
  }

  /** The instance's runtime once any handover of it under way here is done. */
  private async started(instanceId: string): Promise<InstanceRuntime> {
    await this.options.coordinator.handover(instanceId)
    return this.runtime(instanceId)
  }

  /** The instance's runtime, built on first use (never while it changes hands: see `started`). */
  private runtime(instanceId: string): InstanceRuntime {
    const runtime = this.runtimes.get(instanceId)
    if (runtime) return runtime
    if (this.options.coordinator.handover(instanceId))
      throw new AppError('unavailable', 'This instance is changing nodes; try again in a moment.')
    return this.build(instanceId)
  }

  private build(instanceId: string): InstanceRuntime {
    let runtime = this.runtimes.get(instanceId)
    if (runtime) return runtime
    if (this.closed) throw new AppError('unavailable', 'Linkdesk is shutting down.')
    const record = this.options.registry.find(instanceId)
    if (!record) throw new AppError('instance_not_found')
    const { logger, timings, authStore, registry, coordinator } = this.options
    if (!coordinator.mayAct(instanceId)) throw leaseLost(instanceId)
    const log = logger.child({ module: 'instance', instanceId })
    runtime = new InstanceRuntime(
      {
        instanceId,
        logger: log,
        timings,
        events: this.events,
        createSession: (sessionEvents) => this.options.openSession(instanceId, log, sessionEvents),
        wipeCredentials: () => authStore.wipe(instanceId),
        setLinked: (linked) => this.recordLinked(instanceId, linked, log),
        keepStopped: (stop) =>
          registry
            .setStopped(instanceId, stop)
            .catch((error: unknown) => log.error({ err: error }, 'keeping why it stopped failed')),
        lease: {
          mayAct: () => coordinator.mayAct(instanceId),
          afterReplaced: () => coordinator.afterReplaced(instanceId),
        },
      },
      record.linked,
      record.stopped,
    )
    runtime.onChange((status) => {
      if (coordinator.mayAct(instanceId)) coordinator.reportStatus(instanceId, status)
      for (const observer of this.observers) observer.status?.(instanceId, status)
      for (const listener of this.statusListeners) listener(instanceId, status)
    })
    coordinator.reportStatus(instanceId, runtime.status)
    this.runtimes.set(instanceId, runtime)
    this.options.connections.list(instanceId, runtime)
    return runtime
  }
}

/** The status of an instance held by no node right now (its node died, or it never ran): not connected here. */
function elsewhere(record: InstanceRecord): InstanceStatus {
  return {
    state: record.linked ? 'disconnected' : 'idle',
    cause: record.linked ? (record.stopped?.cause ?? 'restoring') : 'created',
    since: record.createdAt,
    linked: record.linked,
    account: null,
    lastError: null,
    nextRetryAt: null,
    qr: null,
  }
}
