import { randomBytes } from 'node:crypto'
import type { Principal } from '../contract/principal'
import { AppError } from '../errors'
import { newWebhookSecret, ownedBy } from '../instances/instance-registry'
import type { SettingsStore, SinkSpec, WebhookRecord } from '../store/settings-store'
import { DEFAULT_EXCHANGE, DEFAULT_STREAM, SINK_KINDS, redactUrl, type SinkKind } from './broker-sinks'
import { WEBHOOK_BATCH_MAX, parseEventFilter } from './webhook-registry'

/** Broker sinks an instance (or a token, global ones) may have. */
export const SINKS_PER_SCOPE = 10

/** A broker sink as the API shows it: its address without its password. */
export interface SinkView {
  sink_id: string
  /** null: global, for every instance of the token that made it. */
  instance_id: string | null
  kind: SinkKind
  url: string
  /** RabbitMQ: the topic exchange it publishes to. */
  exchange?: string
  /** NATS: the JetStream stream that stores its messages. */
  stream?: string
  enable: boolean
  events: string[]
  batch_size: number
  created_at: number
}

export interface SinkInput {
  kind?: string
  url?: string
  exchange?: string
  stream?: string
  enable?: boolean
  events?: readonly string[]
  batchSize?: number
}

function invalid(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { details: { parameter } })
}

const SCHEMES: Record<SinkKind, readonly string[]> = {
  rabbitmq: ['amqp:', 'amqps:'],
  nats: ['nats:', 'tls:'],
}

/** A broker address for that kind: amqp(s)://… for RabbitMQ, nats://… (or tls://…) for NATS, with a host. */
function parseBrokerUrl(kind: SinkKind, value: string): string {
  const expected = SCHEMES[kind].map((scheme) => `${scheme}//`).join(' or ')
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalid('url', `url must be a ${kind} address (${expected}host:port).`)
  }
  if (!SCHEMES[kind].includes(url.protocol) || !url.hostname)
    throw invalid('url', `url must be a ${kind} address (${expected}host:port), not ${url.protocol}//.`)
  if (kind === 'nats' && url.pathname !== '' && url.pathname !== '/')
    throw invalid('url', 'url: a NATS address has no path (nats://user:password@host:port).')
  return url.toString()
}

/** An exchange or stream name: letters, digits and `-_.` (NATS stream names take no dot). */
function parseName(parameter: string, value: string, pattern: RegExp): string {
  const name = value.trim()
  if (!pattern.test(name))
    throw invalid(
      parameter,
      `${parameter} must be 1 to 127 letters, digits, - or _${parameter === 'exchange' ? ' or .' : ''}.`,
    )
  return name
}

function parseSpec(input: SinkInput): { kind: SinkKind; spec: SinkSpec } {
  if (input.kind === undefined)
    throw new AppError('missing_parameter', 'Give the kind of sink: rabbitmq or nats.', {
      details: { parameters: ['kind'] },
    })
  const kind = SINK_KINDS.find((known) => known === input.kind)
  if (!kind)
    throw invalid('kind', `kind must be one of ${SINK_KINDS.join(', ')}, not ${JSON.stringify(input.kind)}.`)
  if (kind === 'rabbitmq') {
    if (input.stream !== undefined)
      throw invalid('stream', 'stream is for a nats sink; a rabbitmq sink takes exchange.')
    return {
      kind,
      spec: { kind, exchange: parseName('exchange', input.exchange ?? DEFAULT_EXCHANGE, /^[\w.-]{1,127}$/) },
    }
  }
  if (input.exchange !== undefined)
    throw invalid('exchange', 'exchange is for a rabbitmq sink; a nats sink takes stream.')
  return {
    kind,
    spec: { kind, stream: parseName('stream', input.stream ?? DEFAULT_STREAM, /^[\w-]{1,127}$/) },
  }
}

function view(record: WebhookRecord & { sink: SinkSpec }): SinkView {
  const { sink } = record
  return {
    sink_id: record.id,
    instance_id: record.instanceId,
    kind: sink.kind,
    url: redactUrl(record.url),
    ...(sink.kind === 'rabbitmq' ? { exchange: sink.exchange } : { stream: sink.stream }),
    enable: record.enable,
    events: record.events,
    batch_size: record.batchSize ?? 1,
    created_at: Math.floor(record.createdAt / 1000),
  }
}

function isSink(record: WebhookRecord | undefined): record is WebhookRecord & { sink: SinkSpec } {
  return record?.sink !== undefined
}

/**
 * Broker sinks: kept beside the added webhooks (the same records, with the broker they publish to), so that
 * they take events through the same filter, outbox and delivery queues; per instance or global per token.
 */
export class SinkRegistry {
  constructor(
    private readonly store: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The caller's sinks: of one instance, or (without one) its global ones. */
  list(principal: Principal, instanceId: string | null): SinkView[] {
    return Object.values(this.store.all('webhooks'))
      .filter(isSink)
      .filter((record) => record.instanceId === instanceId && ownedBy(record, principal))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(view)
  }

  /** Checks the input whole before anything is kept: a bad kind, address or name stores nothing. */
  async add(principal: Principal, instanceId: string | null, input: SinkInput): Promise<SinkView> {
    const { kind, spec } = parseSpec(input)
    if (input.url === undefined)
      throw new AppError('missing_parameter', 'Give the url of the broker.', {
        details: { parameters: ['url'] },
      })
    const url = parseBrokerUrl(kind, input.url)
    const events = parseEventFilter(input.events ?? [])
    const batchSize = input.batchSize ?? 1
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > WEBHOOK_BATCH_MAX)
      throw invalid('batch_size', `batch_size must be an integer from 1 to ${WEBHOOK_BATCH_MAX}.`)
    const owner = principal.kind === 'token' ? principal.tokenId : null
    return this.store.change('webhooks', (records) => {
      const siblings = Object.values(records).filter(
        (record) => isSink(record) && record.instanceId === instanceId && record.ownerTokenId === owner,
      )
      if (
        siblings.some((record) => record.url === url && JSON.stringify(record.sink) === JSON.stringify(spec))
      )
        throw new AppError('conflict', 'A sink to that broker and exchange or stream is already there.', {
          details: { parameter: 'url' },
        })
      if (siblings.length >= SINKS_PER_SCOPE) {
        throw new AppError(
          'conflict',
          `At most ${SINKS_PER_SCOPE} sinks ${instanceId ? 'per instance' : 'global ones per token'}: remove one first.`,
        )
      }
      const record: WebhookRecord & { sink: SinkSpec } = {
        id: `sk_${randomBytes(9).toString('base64url')}`,
        ownerTokenId: owner,
        instanceId,
        url,
        // Unused by a broker; kept so that a sink is a whole webhook record to the stores.
        secret: newWebhookSecret(),
        enable: input.enable ?? true,
        events,
        ...(batchSize > 1 && { batchSize }),
        createdAt: this.now(),
        sink: spec,
      }
      return { put: [record], result: view(record) }
    })
  }

  /** The caller's sink by id: sink_not_found for an unknown id and another token's alike. */
  accessible(id: string, principal: Principal): SinkView {
    const record = this.store.all('webhooks')[id]
    if (!isSink(record) || !ownedBy(record, principal)) throw new AppError('sink_not_found')
    return view(record)
  }

  async remove(id: string, principal: Principal): Promise<void> {
    this.accessible(id, principal)
    return this.store.change('webhooks', () => ({ remove: [id], result: undefined }))
  }
}
