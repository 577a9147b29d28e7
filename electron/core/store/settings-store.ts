import Conf from 'conf'

/** An access token as stored: never the token itself, only its SHA-256. */
export interface TokenRecord {
  id: string
  label: string
  hash: string
  createdAt: number
  source: 'env' | 'ui'
}

/** What the app keeps about an instance between runs; the live state lives in the instance manager. */
export interface InstanceRecord {
  id: string
  ownerTokenId: string | null
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
}

interface SettingsFile {
  tokens: Record<string, TokenRecord>
  instances: Record<string, InstanceRecord>
  webhooks: Record<string, WebhookRecord>
}

/**
 * Tokens and the instance registry in one JSON file (`config.json` in the data folder), written
 * atomically by `conf`, the library `electron-store` is built on, so the desktop app and the headless server
 * read and write the same format. The file is readable by the user only. This process is its only writer,
 * so reads come from a copy in memory (conf itself would read and parse the file on every access, and the
 * registry is read on every request, event and delivery).
 */
export class SettingsStore {
  private readonly conf: Conf<SettingsFile>
  private readonly cache: SettingsFile

  constructor(dataDir: string) {
    this.conf = new Conf<SettingsFile>({
      cwd: dataDir,
      configName: 'config',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      defaults: { tokens: {}, instances: {}, webhooks: {} },
    })
    this.cache = {
      tokens: this.conf.get('tokens'),
      instances: this.conf.get('instances'),
      webhooks: this.conf.get('webhooks') ?? {},
    }
  }

  tokens(): Record<string, TokenRecord> {
    return this.cache.tokens
  }

  saveTokens(tokens: Record<string, TokenRecord>): void {
    this.conf.set('tokens', tokens)
    this.cache.tokens = tokens
  }

  instances(): Record<string, InstanceRecord> {
    return this.cache.instances
  }

  saveInstances(instances: Record<string, InstanceRecord>): void {
    this.conf.set('instances', instances)
    this.cache.instances = instances
  }

  webhooks(): Record<string, WebhookRecord> {
    return this.cache.webhooks
  }

  saveWebhooks(webhooks: Record<string, WebhookRecord>): void {
    this.conf.set('webhooks', webhooks)
    this.cache.webhooks = webhooks
  }
}
