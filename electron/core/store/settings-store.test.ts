import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { AppError } from '../errors'
import { InstanceRegistry } from '../instances/instance-registry'
import { FileSettingsStore } from './lmdb/settings'
import { PostgresSettingsStore } from './postgres/settings'
import type { SettingsStore } from './settings-store'
import { eachBackend, openOn, type PerBackend } from '../testing/backends'

const OPERATOR = { kind: 'operator' } as const

/** Fresh storage for one test: open a store over it (again: a restart), and read what it holds durably. */
interface Storage {
  open(): Promise<SettingsStore>
  durable(): Promise<unknown>
}

/** The same tests for each store: the JSON file of the data folder, and PostgreSQL. */
function settingsStoreTests(
  name: string,
  fresh: (t: { after(fn: () => unknown): void }) => Promise<Storage>,
) {
  test(`${name}: changes made at once each start from the last one: none is lost, and all are durable`, async (t) => {
    const storage = await fresh(t)
    const registry = new InstanceRegistry(await storage.open())
    const { id } = await registry.create(OPERATOR)
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        registry.update(id, (record) => ({ ...record, name: `${record.name ?? ''}${n},` })),
      ),
    )
    const expected = Array.from({ length: 20 }, (_, n) => `${n},`).join('')
    assert.equal(registry.find(id)?.name, expected)
    const reopened = new InstanceRegistry(await storage.open())
    assert.equal(reopened.find(id)?.name, expected, 'durable once the change resolved')
  })

  test(`${name}: a change that throws changes nothing, and the next change still runs`, async (t) => {
    const storage = await fresh(t)
    const registry = new InstanceRegistry(await storage.open())
    const { id } = await registry.create(OPERATOR, 'Sales')
    const before = await storage.durable()
    await assert.rejects(
      registry.update(id, () => {
        throw new AppError('invalid_parameter', 'no such change')
      }),
      /no such change/,
    )
    await assert.rejects(
      registry.update('NOPE', (record) => record),
      { code: 'instance_not_found' },
    )
    assert.deepEqual(await storage.durable(), before)
    assert.equal(registry.find(id)?.name, 'Sales')
    await registry.update(id, (record) => ({ ...record, name: 'Support' }))
    assert.equal(new InstanceRegistry(await storage.open()).find(id)?.name, 'Support')
  })

  test(`${name}: replacing an instance removes the old record and puts the new one in one write`, async (t) => {
    const storage = await fresh(t)
    const registry = new InstanceRegistry(await storage.open())
    const old = await registry.create(OPERATOR, 'Sales')
    await registry.setLinked(old.id, true)
    const replacement = await registry.replace(old.id)
    assert.notEqual(replacement.id, old.id)
    const reopened = new InstanceRegistry(await storage.open())
    assert.equal(reopened.find(old.id), undefined)
    assert.equal(reopened.find(replacement.id)?.name, 'Sales')
    assert.equal(reopened.find(replacement.id)?.linked, false)
    await registry.setLinked(old.id, true)
    assert.deepEqual(
      (await storage.open()).all('instances')[old.id],
      undefined,
      'a gone instance is not brought back',
    )
  })
}

/** Where each backend keeps the settings durably, read raw: the JSON file, or the tables. */
const settingsOn: PerBackend<Storage> = {
  lmdb: ({ dataDir }) => ({
    open: async () => new FileSettingsStore(dataDir),
    durable: async () => readFileSync(join(dataDir, 'config.json'), 'utf8'),
  }),
  postgres: ({ pool }) => ({
    open: () => PostgresSettingsStore.open(pool),
    durable: async () => {
      const tables = ['tokens', 'instances', 'webhooks']
      return Promise.all(
        tables.map(async (table) => (await pool.query(`SELECT id, record FROM ${table} ORDER BY id`)).rows),
      )
    },
  }),
}

eachBackend((backend) =>
  settingsStoreTests(backend.kind, async () => openOn(await backend.fresh(), settingsOn)),
)
