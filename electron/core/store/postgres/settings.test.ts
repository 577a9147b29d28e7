import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InstanceRegistry } from '../../instances/instance-registry'
import { postgresSuite } from '../../testing/postgres-server'
import { PostgresSettingsStore } from './settings'

const OPERATOR = { kind: 'operator' } as const

postgresSuite('postgres', (pool) => {
  test('postgres: a change the database refuses is rolled back and leaves the records in memory as they were', async () => {
    const registry = new InstanceRegistry(await PostgresSettingsStore.open(pool()))
    const { id } = await registry.create(OPERATOR, 'Sales')
    await pool().query(
      `ALTER TABLE instances ADD CONSTRAINT no_forbidden CHECK (record->>'name' <> 'Forbidden')`,
    )
    await assert.rejects(
      registry.update(id, (record) => ({ ...record, name: 'Forbidden' })),
      /no_forbidden/,
    )
    assert.equal(registry.find(id)?.name, 'Sales')
    assert.equal(new InstanceRegistry(await PostgresSettingsStore.open(pool())).find(id)?.name, 'Sales')
    await registry.update(id, (record) => ({ ...record, name: 'Support' }))
    assert.equal(new InstanceRegistry(await PostgresSettingsStore.open(pool())).find(id)?.name, 'Support')
  })
})
