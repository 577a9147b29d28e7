import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { AppError } from '../errors'
import { InstanceRegistry } from '../instances/instance-registry'
import { FileSettingsStore } from './settings-store'

const OPERATOR = { kind: 'operator' } as const

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'linkdesk-settings-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('changes made at once each start from the last one: none is lost, and all are in the file', async (t) => {
  const dir = tempDir(t)
  const registry = new InstanceRegistry(new FileSettingsStore(dir))
  const { id } = await registry.create(OPERATOR)
  await Promise.all(
    Array.from({ length: 20 }, (_, n) =>
      registry.update(id, (record) => ({ ...record, name: `${record.name ?? ''}${n},` })),
    ),
  )
  const expected = Array.from({ length: 20 }, (_, n) => `${n},`).join('')
  assert.equal(registry.find(id)?.name, expected)
  const reopened = new InstanceRegistry(new FileSettingsStore(dir))
  assert.equal(reopened.find(id)?.name, expected, 'durable once the change resolved')
})

test('a change that throws changes nothing, and the next change still runs', async (t) => {
  const dir = tempDir(t)
  const store = new FileSettingsStore(dir)
  const registry = new InstanceRegistry(store)
  const { id } = await registry.create(OPERATOR, 'Sales')
  const before = readFileSync(join(dir, 'config.json'), 'utf8')
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
  assert.equal(readFileSync(join(dir, 'config.json'), 'utf8'), before)
  assert.equal(registry.find(id)?.name, 'Sales')
  await registry.update(id, (record) => ({ ...record, name: 'Support' }))
  assert.equal(new InstanceRegistry(new FileSettingsStore(dir)).find(id)?.name, 'Support')
})

test('replacing an instance removes the old record and puts the new one in one write', async (t) => {
  const dir = tempDir(t)
  const registry = new InstanceRegistry(new FileSettingsStore(dir))
  const old = await registry.create(OPERATOR, 'Sales')
  await registry.setLinked(old.id, true)
  const fresh = await registry.replace(old.id)
  assert.notEqual(fresh.id, old.id)
  const reopened = new InstanceRegistry(new FileSettingsStore(dir))
  assert.equal(reopened.find(old.id), undefined)
  assert.equal(reopened.find(fresh.id)?.name, 'Sales')
  assert.equal(reopened.find(fresh.id)?.linked, false)
  await registry.setLinked(old.id, true)
  assert.deepEqual(
    reopened.all().map((record) => record.id),
    [fresh.id],
    'a gone instance is not brought back',
  )
})
