import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InstanceRegistry } from '../../instances/instance-registry'
import { silentLogger } from '../../logger'
import { eventually } from '../../testing/messaging-harness'
import { queriesDuring } from '../../testing/postgres-queries'
import { postgresSuite } from '../../testing/postgres-server'
import { Notifications } from './notifications'
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

  test('postgres: a change is announced by its record, and a peer reads that record alone; a lost announcement only delays it', async () => {
    const url = (pool().options as { connectionString: string }).connectionString
    const database = new URL(url).pathname.slice(1)
    const signals = [
      new Notifications(url, pool(), silentLogger()),
      new Notifications(url, pool(), silentLogger()),
    ]
    const [a, b] = await Promise.all(
      signals.map((signal) => PostgresSettingsStore.open(pool(), signal, undefined, 200)),
    )
    await Promise.all(signals.map((signal) => signal.open()))
    const here = new InstanceRegistry(a!)
    const peer = new InstanceRegistry(b!)
    try {
      const made: Array<Awaited<ReturnType<typeof here.create>>> = []
      for (let n = 0; n < 30; n += 1) made.push(await here.create(OPERATOR, `Account ${n}`))
      await eventually(
        () => made.every(({ id }) => peer.find(id)),
        (known) => known,
        'the peer knows every new instance',
      )
      // A record read whole, or every record of the table.
      const wholeTable = /record.*FROM instances\s*$/s
      const byId = /FROM instances WHERE id = \$1/
      const target = made[7]!
      const sent = await queriesDuring(database, async () => {
        await here.update(target.id, (record) => ({ ...record, name: 'Renamed' }))
        await eventually(
          () => peer.find(target.id)?.name,
          (name) => name === 'Renamed',
          'the peer has the change',
        )
      })
      assert.equal(sent.filter(({ text }) => wholeTable.test(text)).length, 0, 'no node read every instance')
      // Under load the periodic version check may see the change before its announcement does: the record is
      // then read twice, still alone.
      assert.deepEqual(
        [...new Set(sent.filter(({ text }) => byId.test(text)).map(({ values }) => values[0]))],
        [target.id],
        'the peer read the changed record, and only it',
      )

      // The peer stops hearing (its listening connection is down): the periodic version check catches up.
      await signals[1]!.close()
      const missed = made[11]!
      const later = await queriesDuring(database, async () => {
        await here.update(missed.id, (record) => ({ ...record, name: 'Renamed unheard' }))
        await eventually(
          () => peer.find(missed.id)?.name,
          (name) => name === 'Renamed unheard',
          'the peer caught up without the announcement',
        )
      })
      assert.equal(later.filter(({ text }) => wholeTable.test(text)).length, 0, 'no node read every instance')
      assert.ok(later.some(({ text, values }) => byId.test(text) && values[0] === missed.id))
    } finally {
      a!.close()
      b!.close()
      await Promise.all(signals.map((signal) => signal.close()))
    }
  })
})
