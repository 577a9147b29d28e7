import type { NodeSignals, WriteFence } from '../contract/coordination'
import type { SharedLog } from './event-store'
import type { StoreChoice } from '../config'
import type { Logger } from '../logger'
import type { AuthCipher, AuthStore } from './auth-store'
import type { EventStore } from './event-store'
import type { LedgerRecords } from './ledger-records'
import type { MessageStore } from './message-store'
import type { PollVotes } from './poll-votes'
import type { SettingsStore } from './settings-store'
import type { Uploads } from './uploads'

/** Every part the core keeps, on one store: what a backend opens. */
export interface Stores {
  kind: StoreChoice['kind']
  settings: SettingsStore
  auth: AuthStore
  events: EventStore
  /**
   * When an emitted event is durable: the embedded store journals it first (its commits come in the
   * background); PostgreSQL's commit is the durability point.
   */
  eventDurability: 'journal' | 'commit'
  messages: MessageStore
  ledger: LedgerRecords
  polls: PollVotes
  uploads: Uploads
  /** On PostgreSQL: the event log as every node writes it, read in commit order. */
  sharedLog?: SharedLog
  /** Closes what the stores hold open (after every part using them stopped). */
  close(): Promise<void>
}

/** What every backend is opened with. */
export interface StoreOptions {
  /** The data folder: files that live beside any store (an instance's folder, an embedded store's files). */
  dataDir: string
  cipher?: AuthCipher
  logger: Logger
  /** Whether an acknowledged write must also survive a power loss. */
  fsync?: boolean
  /** How long a deferrable write waits for another to share a transaction with (embedded store). */
  deferredCommitMs?: number
  /** On a shared store: what every write of an instance carries (this node's claim on it). */
  fence?: WriteFence
  /** On a shared store: the signals between the nodes sharing it (settings changes). */
  signals?: NodeSignals
}

/** A store backend: one folder under `store/` whose `index.ts` opens its `Stores` for its kind of choice. */
export type OpenStores<K extends StoreChoice['kind'], Extra = object> = (
  choice: Extract<StoreChoice, { kind: K }>,
  options: StoreOptions & Extra,
) => Promise<Stores>
