import type { StoppedCause } from '../contract/instance-state'
import type { ReplacedVerdict } from '../contract/coordination'

/**
 * What an instance's state machine asks of the rest of the core: its stored record and credentials, and the
 * cluster's lease on it.
 */
export interface InstancePorts {
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
}

/** Why the network stopped an instance, kept in its record until the operator's reconnect or its next open. */
export interface KeptStop {
  cause: StoppedCause
  code: number | null
  at: number
}
