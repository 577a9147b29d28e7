import type { StoppedCause } from '../contract/instance-state'
import { type Reach, SCOPES, type Scope } from '../contract/principal'

export type { Reach, Scope }

/**
 * An access token as stored: never the token itself, only its SHA-256. A window session (source `session`) is
 * kept the same way, with its expiry.
 */
export interface TokenRecord {
  id: string
  label: string
  hash: string
  createdAt: number
  source: 'env' | 'ui' | 'session'
  /** Absent (a token kept before reach existed): `all` for the LINKDESK_ACCESS_TOKEN one, else `chosen`. */
  reach?: Reach
  /** Absent (a token kept before scopes existed): every scope. */
  scopes?: Scope[]
  /** A session's end (ms); tokens have none. */
  expiresAt?: number
}

/** What the app keeps about an instance between runs; the live state lives in the instance manager. */
export interface InstanceRecord {
  id: string
  /** The token that created it (null: the window). */
  ownerTokenId: string | null
  /**
   * The tokens with a chosen reach that may use it (tokens reaching all instances always may). Absent (kept
   * before this existed): the token that created it, if one did.
   */
  tokens?: string[]
  createdAt: number
  /** Whether credentials exist for it (linked at least once and not logged out since). */
  linked: boolean
  /** Its own webhook (set_webhook); batchSize: events one POST may carry (absent: one). */
  webhook: { url: string | null; enable: boolean; secret: string; batchSize?: number }
  /** The operator's name for it ("Sales"); absent: none given. */
  name?: string
  /** What it does on its own (ignore groups, auto-read, always online); absent: all off. */
  behaviours?: { ignore_groups: boolean; auto_read: boolean; always_online: boolean; ignore_status?: boolean }
  /** The proxy its connection goes through (with its credentials; shown masked); absent: direct. */
  proxy?: string
  /** How the instance answers calls; absent: they ring (records kept before the setting existed). */
  calls?: { reject: boolean; message: string | null }
  /**
   * Why the network stopped it (440 replaced, 405 outdated, 402, 409), kept until the operator's reconnect or
   * its next open: a start does not connect it. Absent: it connects at start when linked.
   */
  stopped?: { cause: StoppedCause; code: number | null; at: number }
}

/** A token's reach; a token kept before reach existed: all for LINKDESK_ACCESS_TOKEN's, chosen for the others. */
export function reachOf(record: TokenRecord): Reach {
  return record.reach ?? (record.source === 'env' ? 'all' : 'chosen')
}

/** A token's scopes; a token kept before scopes existed holds every scope. */
export function scopesOf(record: TokenRecord): Scope[] {
  return record.scopes ?? [...SCOPES]
}

/** The chosen-reach tokens that may use an instance; one kept before this existed: the token that created it. */
export function tokensOf(record: InstanceRecord): string[] {
  return record.tokens ?? (record.ownerTokenId ? [record.ownerTokenId] : [])
}

/** A webhook beside an instance's own: for one instance, or global (every instance of its owner). */
export interface WebhookRecord {
  id: string
  /** The token that made it; null: made from the window (a global one then hears every instance). */
  ownerTokenId: string | null
  /** The instance it is for; null: global. */
  instanceId: string | null
  url: string
  secret: string
  enable: boolean
  /** Event names and patterns (`message.*`, `*`) it receives; empty: every event. */
  events: string[]
  /** Events one POST may carry; absent: one. */
  batchSize?: number
  createdAt: number
  /** A broker sink (add_sink) rather than a webhook: `url` is then the broker's address. */
  sink?: SinkSpec
}

/** Where a broker sink publishes: a RabbitMQ topic exchange, or a NATS JetStream stream. */
export type SinkSpec = { kind: 'rabbitmq'; exchange: string } | { kind: 'nats'; stream: string }

/** The records kept in the settings store, by kind. */
export interface SettingsRecords {
  tokens: TokenRecord
  instances: InstanceRecord
  webhooks: WebhookRecord
}

export type SettingsKind = keyof SettingsRecords

/** The records of one kind, by id. */
export type RecordsOf<K extends SettingsKind> = Readonly<Record<string, SettingsRecords[K]>>

/** What one change does: records to put (whole, by their id), ids to remove, and what the change answers. */
export interface SettingsEdit<K extends SettingsKind, T> {
  put?: Array<SettingsRecords[K]>
  remove?: string[]
  result: T
  /**
   * The instance whose own write this is (its record changed by its owner): in a cluster the change carries
   * the claim that this node holds it, and a node that lost it writes nothing.
   */
  of?: string
}

/**
 * Where tokens, instances and added webhooks are kept. They are read on every request, event and delivery,
 * so reads come from a copy in memory, loaded when the store opens. A change is an edit of one kind's records:
 * changes run one at a time, in call order, each from the records as the one before left them, and resolve
 * once what they put and removed is durable; an edit that throws changes nothing.
 */
export interface SettingsStore {
  all<K extends SettingsKind>(kind: K): RecordsOf<K>
  change<K extends SettingsKind, T>(kind: K, edit: (current: RecordsOf<K>) => SettingsEdit<K, T>): Promise<T>
  /** Reads a kind again where other processes share the store (a cluster); nothing to do for a local file. */
  reload(kind: SettingsKind): Promise<void>
  /** Reads one record again (gone: dropped from the copy) where other processes share the store. */
  reloadRecord(kind: SettingsKind, id: string): Promise<void>
}

/** Every settings record, by kind and id. */
export type AllSettings = { [K in SettingsKind]: Record<string, SettingsRecords[K]> }
