import type {
  CommitAnnouncements,
  Coordinator,
  NodeSignals,
  ReplacedVerdict,
  Route,
  WriteFence,
} from '../contract/coordination'
import type { MetricsProvider } from '../contract/metrics'
import type { InstanceStatus } from '../contract/instance-state'

const HERE: Route = { kind: 'here' }

/**
 * The coordinator of a node alone on its store (the embedded LMDB one): always the owner, always local,
 * nothing to fence, no peers. An instance replaced by another connection stays down (the account was opened
 * elsewhere, not by a peer); an announcement of committed events reaches this node only.
 */
export class SingleNode implements Coordinator {
  readonly nodeId = undefined
  /** Never presented: a single node forwards nothing. */
  readonly forwardKey = ''
  readonly fence: WriteFence = {
    claims: () => [],
    refused: (instanceId) => new Error(`a write of instance ${instanceId} was refused`),
    node: () => undefined,
  }
  readonly signals: NodeSignals = {
    on: () => undefined,
    notify: async () => undefined,
  }
  private readonly announced = new Set<() => void>()
  readonly commits: CommitAnnouncements = {
    announce: () => {
      for (const listener of this.announced) listener()
    },
    onAnnounced: (listener) => void this.announced.add(listener),
  }

  mayAct(): boolean {
    return true
  }

  holds(): boolean {
    return true
  }

  /** Nothing ever changes hands: the instances are this node's from the start. */
  handover(): undefined {
    return undefined
  }

  partitionOf(): undefined {
    return undefined
  }

  mayRun(): boolean {
    return true
  }

  restoredHere(linked: readonly string[]): readonly string[] {
    return linked
  }

  /** Alone on its data, the only other copy is another client: stop and keep the cause. */
  async afterReplaced(): Promise<ReplacedVerdict> {
    return 'stop'
  }

  reportStatus(): void {}

  reportedStatus(): InstanceStatus | undefined {
    return undefined
  }

  async adoptNew(): Promise<void> {}

  async dropped(): Promise<void> {}

  async route(): Promise<Route> {
    return HERE
  }

  async placeNew(): Promise<Route> {
    return HERE
  }

  vouchesFor(): boolean {
    return false
  }

  async join(): Promise<void> {}

  async drain(): Promise<void> {}

  async close(): Promise<void> {}

  async health(): Promise<undefined> {
    return undefined
  }

  metricsProvider(): MetricsProvider {
    return { collect: () => [] }
  }
}
