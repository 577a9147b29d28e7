import { AppError } from '../errors'
import type { MetricsProvider } from './metrics'
import type { InstanceStatus } from './instance-state'

/** Where a request for an instance is answered: here, or by the peer that owns it. */
export type Route = { kind: 'here' } | { kind: 'peer'; nodeId: string; address: string }

/** Why this node stopped holding an instance: it gave it up (drain), or lost it (its lease, or a peer took it). */
export type Parting = 'released' | 'lost'

/** What the parts do when this node takes an instance and when it stops holding one. */
export interface OwnershipHooks {
  acquired(instanceId: string): Promise<void> | void
  parted(instanceId: string, why: Parting): Promise<void> | void
  /**
   * Whether the instance may be handed to another node now (rebalancing): connected and settled, not in its
   * first login nor mid-link. Unset: any linked instance may.
   */
  movable?(instanceId: string): boolean
}

/** What a fenced write proves for one instance: the node holding it and its fencing token. */
export interface FenceClaim {
  instance_id: string
  node_id: string
  token: number
}

/**
 * What every write of an instance carries: the claims the store checks and holds until its commit (`claims`
 * throws lease_lost at once, writing nothing, for an instance this node may not write), and what a write the
 * store refused becomes (`refused`: lease_lost, after which the node checks what it still holds).
 */
export interface WriteFence {
  claims(instanceIds: Iterable<string>): FenceClaim[]
  refused(instanceId: string): Error
  /**
   * For a write of no one instance (an upload): the node whose unexpired lease the store checks with it, or
   * none on a single node. Throws lease_lost at once, writing nothing, while this node's lease is in doubt.
   */
  node(): string | undefined
}

/** The channels nodes signal each other on. */
export type Channel = 'linkdesk_cluster' | 'linkdesk_settings' | 'linkdesk_events'

/**
 * Signals between the nodes sharing a store: a signal only wakes a reader, which reads what it announces back
 * from the store (settings changes, committed events).
 */
export interface NodeSignals {
  on(channel: Channel, handler: (payload: string) => void): void
  /** Sends a signal; a failure is logged, not thrown. */
  notify(channel: Channel, payload: string): Promise<void>
}

/** The signal that some node committed events to the shared log (one per 20 ms at most). */
export interface CommitAnnouncements {
  announce(): void
  onAnnounced(listener: () => void): void
}

/**
 * How this node shares the work with others: which instances it may act for, the fence its writes carry, where
 * a request for an instance is answered, and when it joins and leaves. One implementation per deployment,
 * chosen once by the composition root: a single node (always the owner, always local, nothing to fence, no
 * peers) or a cluster of nodes sharing PostgreSQL (cluster/cluster.ts). No part asks which one it has.
 */
export interface Coordinator {
  /** This node's name among its peers, on every answer and webhook POST; a single node has none. */
  readonly nodeId: string | undefined
  /** Whether this node may act for the instance now (connect, send, post, answer "durable"). */
  mayAct(instanceId: string): boolean
  /** Whether this node holds the instance (even while its lease is in doubt). */
  holds(instanceId: string): boolean
  /**
   * While this node is taking the instance over (its settings and keys are read again, then it starts) or
   * letting it go (it stops, its writes commit): the promise of the end of that. Nothing may be built for the
   * instance meanwhile.
   */
  handover(instanceId: string): Promise<void> | undefined
  /** The instance a shared piece of work (an added webhook's queue) is split by: none on a single node. */
  partitionOf(instanceId: string): string | undefined
  /** Whether this node runs the work of a partition now (work split by no instance runs on a single node). */
  mayRun(partition: string | undefined): boolean
  /** Of the instances linked at start, those this node restores itself (a cluster node takes its share as it acquires them). */
  restoredHere(linked: readonly string[]): readonly string[]
  /**
   * After the network said another connection replaced this one: `retry` (this node still holds it and the
   * 440s are few: reconnect with backoff), `stop` (stop and keep the cause in the record: the operator
   * reconnects), or `elsewhere` (another node holds it now: stop quietly, keep nothing).
   */
  afterReplaced(instanceId: string): Promise<ReplacedVerdict>
  /** Records the status of an instance held here, for the peers that list it. */
  reportStatus(instanceId: string, status: InstanceStatus): void
  /** The status the owner last reported for an instance held elsewhere. */
  reportedStatus(instanceId: string): InstanceStatus | undefined
  /** Takes a new instance at once (it was placed here). */
  adoptNew(instanceId: string): Promise<void>
  /** Lets go of a destroyed instance for good. */
  dropped(instanceId: string): Promise<void>
  /** Where a request for the instance is answered (`forwarded`: a peer sent it here). */
  route(instanceId: string, forwarded: boolean): Promise<Route>
  /** Where a new instance goes. */
  placeNew(forwarded: boolean): Promise<Route>
  /** Whether a request presenting this key comes from a peer (which authenticated its caller). */
  vouchesFor(presentedKey: string): boolean
  /** The key this node presents when it forwards a request to a peer. */
  readonly forwardKey: string
  /** What every write of an instance carries. */
  readonly fence: WriteFence
  readonly signals: NodeSignals
  readonly commits: CommitAnnouncements
  /**
   * Starts acting: advertises `address` (where peers forward requests) and tells `hooks` of every instance it
   * takes and parts with from then on.
   */
  join(address: string, hooks: OwnershipHooks): Promise<void>
  /** Leaves in order: every instance held here is parted and released to the peers at once. */
  drain(): Promise<void>
  /** Stops without releasing anything (the process is going away abruptly). */
  close(): Promise<void>
  /** Health's view: this node, its leases and its peers; none on a single node. */
  health(): Promise<Record<string, unknown> | undefined>
  /** This node's part for GET /api/v1/metrics. */
  metricsProvider(): MetricsProvider
}

/** The fencing error: the instance is not (or no longer) this node's to act for; nothing was done. */
export function leaseLost(instanceId: string): AppError {
  return new AppError('unavailable', 'This node no longer owns the instance; nothing was done.', {
    details: { instance_id: instanceId, reason: 'lease_lost' },
  })
}

/** The fencing error of a write of no one instance: this node's lease lapsed; nothing was done. */
export function nodeLeaseLost(nodeId: string): AppError {
  return new AppError('unavailable', "This node's lease has lapsed; nothing was done.", {
    details: { node_id: nodeId, reason: 'lease_lost' },
  })
}

/** What a node does after a 440 "replaced" (see Coordinator.afterReplaced). */
export type ReplacedVerdict = 'retry' | 'stop' | 'elsewhere'
