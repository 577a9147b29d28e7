import { type Coordinator, leaseLost } from '../contract/coordination'
import { AppError } from '../errors'
import type { WaConnection } from '../contract/network'

/** What a running instance offers: its connection once connected (waiting a while if it is on its way). */
export interface ConnectionSource {
  connection(): Promise<WaConnection>
}

/**
 * The directory of live connections, built before the two parts that share it: the instance manager lists
 * every instance it runs here, and the messages part reaches an instance's connection through it (so neither
 * needs the other to exist first).
 */
export class LiveConnections {
  private readonly sources = new Map<string, ConnectionSource>()
  private closed = false

  constructor(
    private readonly deps: {
      coordinator: Pick<Coordinator, 'mayAct'>
      /** Whether the instance exists. */
      known(instanceId: string): boolean
    },
  ) {}

  /**
   * The messaging operations, once connected (waiting a while if it is on its way), or 409 not_connected. None
   * once this node may no longer act for the instance (a send queued before a pause stays unsent).
   */
  async connection(instanceId: string): Promise<WaConnection> {
    const source = this.sources.get(instanceId)
    if (!source) throw this.absent(instanceId)
    const connection = await source.connection()
    if (!this.deps.coordinator.mayAct(instanceId)) throw leaseLost(instanceId)
    return connection
  }

  /** Lists a running instance (the instance manager, as it starts one). */
  list(instanceId: string, source: ConnectionSource): void {
    this.sources.set(instanceId, source)
  }

  /** Takes a stopped instance off the directory (unless another run of it was listed since). */
  unlist(instanceId: string, source: ConnectionSource): void {
    if (this.sources.get(instanceId) === source) this.sources.delete(instanceId)
  }

  /** From now on an instance not listed is refused as shutting down (the manager unlists each as it stops). */
  close(): void {
    this.closed = true
  }

  /** Why an instance that is not running has no connection. */
  private absent(instanceId: string): AppError {
    if (this.closed) return new AppError('unavailable', 'Linkdesk is shutting down.')
    if (!this.deps.known(instanceId)) return new AppError('instance_not_found')
    if (!this.deps.coordinator.mayAct(instanceId)) return leaseLost(instanceId)
    // An instance not running is not linked (a linked one runs from the start): nothing is on its way.
    return new AppError('not_connected', NOT_LINKED_YET)
  }
}

/** Why an unlinked instance cannot send: reconnecting does not help, linking does. */
export const NOT_LINKED_YET =
  'The instance is not linked to an account: link it first (scan its QR code or enter a pairing code), then send.'
