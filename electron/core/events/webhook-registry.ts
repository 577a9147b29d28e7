import { randomBytes } from 'node:crypto'
import type { Principal } from '../contract/principal'
import { AppError } from '../errors'
import { newWebhookSecret, ownedBy } from '../instances/instance-registry'
import type { SettingsStore, WebhookRecord } from '../store/settings-store'
import { EVENT_NAMES, type EventName } from '../contract/event-catalogue'

/** Webhooks an instance (or a token) may have beside the instance's own. */
export const WEBHOOKS_PER_SCOPE = 10

/** The most events one batched POST may carry. */
export const WEBHOOK_BATCH_MAX = 100

/** A webhook as the API shows it (the secret is shown to its owner, as get_webhook shows the instance's). */
export interface WebhookView {
  webhook_id: string
  /** null: global, for every instance of the token that made it. */
  instance_id: string | null
  url: string
  enable: boolean
  events: string[]
  secret: string
  /** Events one POST may carry: 1, one event as the body; more, a JSON array of the events waiting. */
  batch_size: number
  created_at: number
}

export interface WebhookInput {
  url?: string
  enable?: boolean
  events?: readonly string[]
  batchSize?: number
  /** The instance's own webhook URL (set_webhook): an added one may not repeat it. */
  ownUrl?: string | null
}

function invalid(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { details: { parameter } })
}

/** Whether an event name is taken by a filter entry: its name, `prefix.*` or `*`. */
function entryMatches(entry: string, event: string): boolean {
  if (entry === '*' || entry === event) return true
  return entry.endsWith('.*') && event.startsWith(entry.slice(0, -1))
}

/** Whether a filter takes an event (an empty filter takes every event). */
export function filterMatches(filter: readonly string[], event: string): boolean {
  return filter.length === 0 || filter.some((entry) => entryMatches(entry, event))
}

/** Whether a token (by id, as it is now) reaches an instance. */
export type TokenReaches = (tokenId: string, instanceId: string) => boolean

/** Reads an event filter: each entry an event name or a pattern that names at least one event. */
export function parseEventFilter(entries: readonly string[]): string[] {
  const filter = [...new Set(entries.map((entry) => entry.trim()).filter(Boolean))]
  for (const entry of filter) {
    if (!EVENT_NAMES.some((name) => entryMatches(entry, name))) {
      throw invalid(
        'events',
        `events: ${JSON.stringify(entry)} is not an event name or a pattern of some (such as message.* or group.participants).`,
      )
    }
  }
  return filter
}

function parseUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalid('url', 'url must be an http:// or https:// URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('url', 'url must be an http:// or https:// URL.')
  return url.toString()
}

function view(record: WebhookRecord): WebhookView {
  return {
    webhook_id: record.id,
    instance_id: record.instanceId,
    url: record.url,
    enable: record.enable,
    events: record.events,
    secret: record.secret,
    batch_size: record.batchSize ?? 1,
    created_at: Math.floor(record.createdAt / 1000),
  }
}

/**
 * The webhooks beside each instance's own (set_webhook): several per instance and global ones per token,
 * each with its URL, secret, switch and event filter, kept in the settings file.
 */
export class WebhookRegistry {
  constructor(
    private readonly store: SettingsStore,
    private readonly reaches: TokenReaches,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether a webhook takes the events of that instance: its own, a global one of a token that reaches it
   * (as the token's reach is now), or a global one made in the window (which hears every instance).
   */
  takes(webhook: WebhookRecord, instanceId: string): boolean {
    if (webhook.instanceId !== null) return webhook.instanceId === instanceId
    return webhook.ownerTokenId === null || this.reaches(webhook.ownerTokenId, instanceId)
  }

  /** An added webhook or a broker sink (add_sink), by id: the delivery queues deliver to both. */
  find(id: string): WebhookRecord | undefined {
    return this.store.all('webhooks')[id]
  }

  /** The caller's webhooks: of one instance, or (without one) its global ones. */
  list(principal: Principal, instanceId: string | null): WebhookView[] {
    return Object.values(this.store.all('webhooks'))
      .filter((record) => !record.sink && record.instanceId === instanceId && ownedBy(record, principal))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(view)
  }

  /** An instance's added webhooks as its view shows them: without their secrets. */
  summaries(instanceId: string): Array<Pick<WebhookView, 'webhook_id' | 'url' | 'enable' | 'events'>> {
    return Object.values(this.store.all('webhooks'))
      .filter((record) => !record.sink && record.instanceId === instanceId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(({ id, url, enable, events }) => ({ webhook_id: id, url, enable, events }))
  }

  /** The enabled webhooks (and broker sinks) that take this event of this instance. */
  targetsOf(instanceId: string, event: EventName): WebhookRecord[] {
    return Object.values(this.store.all('webhooks')).filter(
      (record) => record.enable && this.takes(record, instanceId) && filterMatches(record.events, event),
    )
  }

  async add(principal: Principal, instanceId: string | null, input: WebhookInput): Promise<WebhookView> {
    if (input.url === undefined)
      throw new AppError('missing_parameter', 'Give the url that receives the events.', {
        details: { parameters: ['url'] },
      })
    const url = parseUrl(input.url)
    const events = parseEventFilter(input.events ?? [])
    const owner = principal.kind === 'token' ? principal.tokenId : null
    return this.store.change('webhooks', (webhooks) => {
      const siblings = Object.values(webhooks).filter(
        (record) => !record.sink && record.instanceId === instanceId && record.ownerTokenId === owner,
      )
      this.refuseDuplicate(siblings, url, input.ownUrl)
      if (siblings.length >= WEBHOOKS_PER_SCOPE) {
        throw new AppError(
          'conflict',
          `At most ${WEBHOOKS_PER_SCOPE} webhooks ${instanceId ? 'per instance' : 'global ones per token'}: remove one first.`,
        )
      }
      const record: WebhookRecord = {
        id: `wh_${randomBytes(9).toString('base64url')}`,
        ownerTokenId: owner,
        instanceId,
        url,
        secret: newWebhookSecret(),
        enable: input.enable ?? true,
        events,
        ...(input.batchSize !== undefined && input.batchSize > 1 && { batchSize: input.batchSize }),
        createdAt: this.now(),
      }
      return { put: [record], result: view(record) }
    })
  }

  /** The caller's webhook by id: webhook_not_found for an unknown id and another token's alike. */
  accessible(id: string, principal: Principal): WebhookRecord {
    const record = this.find(id)
    if (!record || record.sink || !ownedBy(record, principal)) throw new AppError('webhook_not_found')
    return record
  }

  async update(
    id: string,
    principal: Principal,
    input: WebhookInput & { rotateSecret?: boolean },
  ): Promise<WebhookView> {
    this.accessible(id, principal)
    const newUrl = input.url === undefined ? undefined : parseUrl(input.url)
    const newEvents = input.events === undefined ? undefined : parseEventFilter(input.events)
    return this.store.change('webhooks', (webhooks) => {
      const record = webhooks[id]
      if (!record) throw new AppError('webhook_not_found')
      const url = newUrl ?? record.url
      const events = newEvents ?? record.events
      if (url !== record.url) {
        this.refuseDuplicate(
          Object.values(webhooks).filter(
            (other) =>
              other.id !== id &&
              !other.sink &&
              other.instanceId === record.instanceId &&
              other.ownerTokenId === record.ownerTokenId,
          ),
          url,
          input.ownUrl,
        )
      }
      const { batchSize: _batchSize, ...rest } = record
      const batchSize = input.batchSize ?? record.batchSize ?? 1
      const updated: WebhookRecord = {
        ...rest,
        url,
        events,
        enable: input.enable ?? record.enable,
        secret: input.rotateSecret ? newWebhookSecret() : record.secret,
        ...(batchSize > 1 && { batchSize }),
      }
      return { put: [updated], result: view(updated) }
    })
  }

  async remove(id: string, principal: Principal): Promise<void> {
    this.accessible(id, principal)
    return this.store.change('webhooks', () => ({ remove: [id], result: undefined }))
  }

  /** Drops an instance's webhooks (the instance was destroyed). */
  forgetInstance(instanceId: string): Promise<void> {
    return this.store.change('webhooks', (webhooks) => ({
      remove: Object.values(webhooks)
        .filter((record) => record.instanceId === instanceId)
        .map((record) => record.id),
      result: undefined,
    }))
  }

  private refuseDuplicate(siblings: WebhookRecord[], url: string, ownUrl?: string | null): void {
    if (siblings.some((record) => record.url === url) || (ownUrl && new URL(ownUrl).toString() === url)) {
      throw new AppError('conflict', `A webhook with the url ${url} is already there: update it instead.`, {
        details: { parameter: 'url' },
      })
    }
  }
}
