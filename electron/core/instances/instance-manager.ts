import type { Principal } from '../contract/principal'
import type { Timings } from '../config'
import { leaseLost } from '../cluster/node-lease'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { AuthStore } from '../store/auth-store'
import type { InstanceRecord } from '../store/settings-store'
import type { NetworkRoutes } from '../wa/network-endpoint'
import { checkProxyReachable, parseProxyUrl } from '../wa/proxy'
import { WaSession } from '../wa/wa-session'
import type { WaVersionSource } from '../wa/wa-version'
import type { WaConnection, WaMessageHooks } from '../contract/network'
import type { InstanceRegistry } from './instance-registry'
import { BEHAVIOURS, type InstanceBehaviours } from '../contract/instance'
import { behavioursOf, instanceName } from './instance-settings'
import { type ConnectionData, InstanceRuntime } from './instance-runtime'
import type { InstanceStatus, QrCode } from '../contract/instance-state'

export interface InstanceManagerOptions {
  logger: Logger
  timings: Timings
  /** Where state changes and instance.destroyed go. */
  events: EventSink
  registry: InstanceRegistry
  authStore: AuthStore
  /** The network configs: direct, or through an instance's proxy. */
  network: NetworkRoutes
  /** The client version every socket announces. */
  versions: WaVersionSource
  /** The messages part: stored content for retries, incoming messages, statuses. */
  hooks: WaMessageHooks
  /** Drops what the messages part keeps for a destroyed instance (its messages, media and queued sends). */
  forgetMessages(instanceId: string): Promise<void>
  /**
   * In a cluster: which instances this node holds. Only those run here (`adopt` and `part` follow the
   * cluster's decisions); the others' statuses are the ones their owners reported.
   */
  ownership?: InstanceOwnership
}

/** What the manager asks of the cluster. */
export interface InstanceOwnership {
  mayAct(instanceId: string): boolean
  held(): string[]
  stillOwner(instanceId: string): Promise<boolean>
  reportStatus(instanceId: string, status: InstanceStatus): void
  reportedStatus(instanceId: string): InstanceStatus | undefined
  /** Takes a new instance here at once (it was placed on this node). */
  adoptNew(instanceId: string): Promise<void>
  /** Lets go of a destroyed instance for good. */
  dropped(instanceId: string): Promise<void>
}

type StatusListener = (instanceId: string, status: InstanceStatus) => void
type SettingsListener = (instanceId: string, record: InstanceRecord) => void
type DestroyedListener = (oldId: string, newId: string) => void

/**
 * The live instances: one state machine (and Baileys adapter) per registry record, created on first use,
 * restored at start when linked, staggered. Callers resolve the instance for their caller first (the API's
 * InstanceAccess); an id with no record is instance_not_found here too.
 */
export class InstanceManager {
  private readonly runtimes = new Map<string, InstanceRuntime>()
  private readonly statusListeners = new Set<StatusListener>()
  private readonly destroyedListeners = new Set<DestroyedListener>()
  private readonly settingsListeners = new Set<SettingsListener>()
  private readonly restoreTimers = new Set<NodeJS.Timeout>()
  private readonly events: EventSink
  private closed = false
  /** When the next adopted instance may connect (adoptions are staggered like the restore at start). */
  private nextConnectAt = 0
  private readonly log: Logger

  constructor(private readonly options: InstanceManagerOptions) {
    this.events = options.events
    this.log = options.logger.child({ module: 'instances' })
  }

  /** Restarts every linked instance, one every `restoreStaggerMs`, so many accounts do not connect at once. */
  restoreAll(): void {
    // In a cluster the instances come one by one, as this node acquires them (adopt).
    if (this.options.ownership) return
    const linked = this.options.registry.all().filter((record) => record.linked)
    linked.forEach((record, index) => {
      const timer = setTimeout(() => {
        this.restoreTimers.delete(timer)
        if (this.closed || !this.options.registry.find(record.id)) return
        this.runtime(record.id)
          .restore()
          .catch((error: unknown) => this.log.error({ err: error, instanceId: record.id }, 'restore failed'))
      }, index * this.options.timings.restoreStaggerMs)
      this.restoreTimers.add(timer)
    })
    if (linked.length > 0) this.log.info({ count: linked.length }, 'restoring linked instances')
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
    const runtime = this.runtime(instanceId)
    this.log.info({ instanceId, linked: runtime.status.linked }, 'instance adopted')
    if (!runtime.status.linked) return
    const now = Date.now()
    const at = Math.max(now, this.nextConnectAt)
    this.nextConnectAt = at + this.options.timings.restoreStaggerMs
    const timer = setTimeout(() => {
      this.restoreTimers.delete(timer)
      if (this.closed || this.runtimes.get(instanceId) !== runtime) return
      runtime
        .restore()
        .catch((error: unknown) => this.log.error({ err: error, instanceId }, 'restore failed'))
    }, at - now)
    this.restoreTimers.add(timer)
  }

  /** In a cluster, once this node no longer holds the instance: its socket ends here, quietly. */
  async part(instanceId: string): Promise<void> {
    const runtime = this.runtimes.get(instanceId)
    if (!runtime) return
    this.runtimes.delete(instanceId)
    await runtime.shutdown()
    await this.options.authStore.reload(instanceId)
  }

  /** A new instance owned by the caller, announced by `instance.created`. */
  async create(owner: Principal, name?: string): Promise<InstanceRecord> {
    const record = await this.options.registry.create(
      owner,
      name === undefined ? undefined : instanceName(name),
    )
    await this.options.ownership?.adoptNew(record.id)
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
    if (proxy) await checkProxyReachable(proxy)
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
    for (const listener of this.settingsListeners) listener(instanceId, record)
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

  /** Calls `listener` after every settings change (the behaviours act on it at once). */
  onSettingsChanged(listener: (instanceId: string, record: InstanceRecord) => void): void {
    this.settingsListeners.add(listener)
  }

  /** The live status of an existing instance (in a cluster, of one held elsewhere: as its owner reported it). */
  status(instanceId: string): InstanceStatus {
    const ownership = this.options.ownership
    if (ownership && !this.runtimes.has(instanceId) && !ownership.mayAct(instanceId)) {
      if (!this.options.registry.find(instanceId)) throw new AppError('instance_not_found')
      return ownership.reportedStatus(instanceId) ?? elsewhere(this.options.registry.find(instanceId)!)
    }
    return this.runtime(instanceId).status
  }

  generateQr(instanceId: string): Promise<QrCode> {
    return this.runtime(instanceId).startScan()
  }

  reconnect(instanceId: string): Promise<ConnectionData> {
    return this.runtime(instanceId).reconnect()
  }

  reinitialize(instanceId: string): Promise<void> {
    return this.runtime(instanceId).reinitialize()
  }

  pairingCode(instanceId: string, phone: string): Promise<string> {
    return this.runtime(instanceId).pairingCode(phone)
  }

  /**
   * The messaging operations, once connected (waiting a while if it is on its way), or 409 not_connected. In a
   * cluster, none once this node may no longer act for the instance (a send queued before a pause stays unsent).
   */
  async connection(instanceId: string): Promise<WaConnection> {
    const connection = await this.runtime(instanceId).connection()
    const ownership = this.options.ownership
    if (ownership && !ownership.mayAct(instanceId)) throw leaseLost(instanceId)
    return connection
  }

  /**
   * Logs the instance out, deletes its files, replaces its record by a fresh one with a new id (same owner)
   * and answers that id. `instance.destroyed` goes out under the old id before its record disappears.
   */
  async destroy(instanceId: string): Promise<string> {
    const runtime = this.runtime(instanceId)
    await runtime.destroy()
    try {
      this.events.emit(instanceId, 'instance.destroyed', { reason: 'destroyed' })
    } catch (error) {
      this.log.error({ err: error, instanceId }, 'emitting instance.destroyed failed')
    }
    this.runtimes.delete(instanceId)
    await this.options.authStore.remove(instanceId)
    await this.options
      .forgetMessages(instanceId)
      .catch((error: unknown) => this.log.error({ err: error, instanceId }, 'dropping the messages failed'))
    const record = await this.options.registry.replace(instanceId)
    await this.options.ownership?.adoptNew(record.id)
    await this.options.ownership?.dropped(instanceId)
    this.log.info({ instanceId, newInstanceId: record.id }, 'instance destroyed')
    this.announceCreated(record, instanceId)
    for (const listener of this.destroyedListeners) listener(instanceId, record.id)
    return record.id
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

  /** Calls `listener` when an instance is destroyed, so other parts can drop what they keep for it. */
  onDestroyed(listener: DestroyedListener): () => void {
    this.destroyedListeners.add(listener)
    return () => this.destroyedListeners.delete(listener)
  }

  /** Ends every socket and timer; the stored state stays for the next start. */
  async close(): Promise<void> {
    this.closed = true
    for (const timer of this.restoreTimers) clearTimeout(timer)
    this.restoreTimers.clear()
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.shutdown()))
    this.runtimes.clear()
    await this.options.authStore.close()
  }

  private runtime(instanceId: string): InstanceRuntime {
    let runtime = this.runtimes.get(instanceId)
    if (runtime) return runtime
    if (this.closed) throw new AppError('unavailable', 'Linkdesk is shutting down.')
    const record = this.options.registry.find(instanceId)
    if (!record) throw new AppError('instance_not_found')
    const { logger, timings, authStore, network, registry, versions, ownership } = this.options
    if (ownership && !ownership.mayAct(instanceId)) throw leaseLost(instanceId)
    const log = logger.child({ module: 'instance', instanceId })
    runtime = new InstanceRuntime(
      {
        instanceId,
        logger: log,
        timings,
        events: this.events,
        createSession: (sessionEvents) =>
          new WaSession({
            instanceId,
            logger: log,
            timings,
            network: () => network.for(registry.find(instanceId)?.proxy),
            ignoresStatus: () => behavioursOf(registry.find(instanceId)).ignore_status,
            openAuth: () => authStore.forInstance(instanceId),
            versions,
            hooks: this.options.hooks,
            events: sessionEvents,
          }),
        wipeCredentials: () => authStore.wipe(instanceId),
        setLinked: (linked) =>
          registry
            .setLinked(instanceId, linked)
            .catch((error: unknown) => log.error({ err: error }, 'recording whether it is linked failed')),
        ...(ownership && {
          lease: {
            mayAct: () => ownership.mayAct(instanceId),
            stillOwner: () => ownership.stillOwner(instanceId),
          },
        }),
      },
      record.linked,
    )
    runtime.onChange((status) => {
      if (ownership?.mayAct(instanceId)) ownership.reportStatus(instanceId, status)
      for (const listener of this.statusListeners) listener(instanceId, status)
    })
    if (ownership) ownership.reportStatus(instanceId, runtime.status)
    this.runtimes.set(instanceId, runtime)
    return runtime
  }
}

/** The status of an instance held by no node right now (its node died, or it never ran): not connected here. */
function elsewhere(record: InstanceRecord): InstanceStatus {
  return {
    state: record.linked ? 'disconnected' : 'idle',
    cause: record.linked ? 'restoring' : 'created',
    since: record.createdAt,
    linked: record.linked,
    account: null,
    lastError: null,
    nextRetryAt: null,
    qr: null,
  }
}
