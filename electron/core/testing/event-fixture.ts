import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SingleNode } from '../cluster/single-node'
import { silentLogger } from '../logger'
import { openTestEventStore } from './test-store'
import type { InstanceRecord, WebhookRecord } from '../store/settings-store'
import { EventService, type EventServiceDeps } from '../events/event-service'
import { DEFAULT_EVENT_SETTINGS, type EventSettings } from '../contract/event-settings'

/** A webhook directory with one enabled webhook, added to `instanceId`, taking every event. */
export function oneAddedWebhook(instanceId: string, url: string): NonNullable<EventServiceDeps['webhooks']> {
  const record: WebhookRecord = {
    id: 'wh_added',
    ownerTokenId: 'token-1',
    instanceId,
    url,
    secret: 'whsec_added',
    enable: true,
    events: [],
    createdAt: 0,
  }
  return {
    find: (id) => (id === record.id ? record : undefined),
    targetsOf: (id) => (id === instanceId ? [record] : []),
    takes: (webhook, id) => webhook.id === record.id && id === instanceId,
  }
}

/** Settings with millisecond backoffs, so retries in tests take no noticeable time. */
export const FAST_EVENT_SETTINGS: EventSettings = {
  webhook: { timeoutMs: 5_000, backoffBaseMs: 5, backoffMaxMs: 40, maxAttempts: 6, maxAgeMs: 60_000 },
  retention: DEFAULT_EVENT_SETTINGS.retention,
  stream: { heartbeatMs: 1_000, stallTimeoutMs: 5_000 },
}

/** An event service on a fresh store with an in-memory instance directory, and its cleanup. */
export interface EventFixture {
  service: EventService
  dataDir: string
  instances: Map<string, InstanceRecord>
  /** Adds an instance record whose webhook points at `url` (on unless told otherwise). */
  addInstance(id: string, url: string | null, enable?: boolean, owner?: string | null): InstanceRecord
  close(): Promise<void>
}

export async function eventFixture(
  settings: EventSettings = FAST_EVENT_SETTINGS,
  dataDir?: string,
  deps: Partial<EventServiceDeps> = {},
): Promise<EventFixture> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'linkdesk-events-'))
  const store = await openTestEventStore(dir)
  const instances = new Map<string, InstanceRecord>()
  const service = await EventService.open({
    ...store.deps,
    dataDir: dir,
    instances: {
      find: (id) => instances.get(id),
      update: async (id, change) => {
        const record = instances.get(id)
        if (!record) throw new Error(`no instance ${id}`)
        const changed = change(record)
        instances.set(id, changed)
        return changed
      },
    },
    settings,
    logger: silentLogger(),
    coordinator: new SingleNode(),
    ...deps,
  })
  await service.start()
  return {
    service,
    dataDir: dir,
    instances,
    addInstance(id, url, enable = true, owner = 'token-1') {
      const record: InstanceRecord = {
        id,
        ownerTokenId: owner,
        createdAt: Date.now(),
        linked: true,
        webhook: { url, enable, secret: `whsec_test_${id}` },
      }
      instances.set(id, record)
      return record
    },
    async close() {
      await service.close()
      await store.close()
      if (!dataDir) rmSync(dir, { recursive: true, force: true })
    },
  }
}
