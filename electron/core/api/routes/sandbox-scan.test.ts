import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Core } from '../../index'
import { call, ok, startCore, tempDataDir, TOKEN } from '../../testing/instance-harness'

let core: Core
let dataDir: string

before(async () => {
  dataDir = tempDataDir()
  core = await startCore({ dataDir, sandbox: true, limits: { sendIntervalMs: 0 } })
})

after(async () => {
  await core.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function getJson(path: string): Promise<any> {
  const response = await fetch(`${core.apiBase}/${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  assert.equal(response.status, 200, path)
  return response.json()
}

test('sandbox_scan links an instance with a simulated phone in one call and answers once it is connected', async () => {
  const id = (await ok(core.apiBase, 'create_instance')).instance_id
  const scanned = await ok(core.apiBase, 'sandbox_scan', { instance_id: id, phone: '+1 555 030 0001' })
  assert.equal(scanned.message, 'Linked by a sandbox phone')
  assert.match(scanned.jid, /^15550300001:\d+@s\.whatsapp\.net$/)
  assert.match(scanned.lid, /@lid$/)
  assert.equal(core.instances.status(id).state, 'connected')
  assert.equal(core.instances.status(id).account?.id.split(':')[0], '15550300001')

  // The link is real: a contact receives what the instance sends.
  await ok(core.apiBase, 'sandbox/accounts', { phone: '15550300002', name: 'Bob' })
  await ok(core.apiBase, 'send_message', {
    instance_id: id,
    number: '15550300002',
    type: 'text',
    message: 'hi',
  })
  const inbox = await getJson('sandbox/accounts/15550300002/messages')
  assert.deepEqual(
    inbox.messages.map((message: { text: string; from: string }) => [
      message.from.split('@')[0],
      message.text,
    ]),
    [['15550300001', 'hi']],
  )

  // A linked instance is refused and stays linked to the same account.
  const again = await call(core.apiBase, 'sandbox_scan', { instance_id: id, phone: '15550300003' })
  assert.equal(again.status, 409)
  assert.equal(again.body.code, 'already_linked')
  assert.equal(core.instances.status(id).account?.id.split(':')[0], '15550300001')
  const accounts = (await getJson('sandbox/accounts')).accounts.map((a: { phone: string }) => a.phone)
  assert.ok(!accounts.includes('15550300003'), 'the refused phone was not added to the network')
})

test('sandbox_scan refuses a malformed phone and an unknown instance, changing nothing', async () => {
  const id = (await ok(core.apiBase, 'create_instance')).instance_id
  const bad = await call(core.apiBase, 'sandbox_scan', { instance_id: id, phone: 'abc' })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.code, 'invalid_parameter')
  assert.equal(core.instances.status(id).state, 'idle')
  const unknown = await call(core.apiBase, 'sandbox_scan', { instance_id: 'NOPE', phone: '15550300004' })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'instance_not_found')
})
