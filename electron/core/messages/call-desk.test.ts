import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ok } from '../testing/instance-harness'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually } from '../testing/messaging-harness'

const ME = '15550450001'
const ALICE = '15550450002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

const control = () => linked.control
const api = linked.api
const callOf = (id: string) =>
  control()
    .calls(ALICE)
    .find((made) => made.id === id)

test('a call rings as call.received and is rejected by hand: the caller sees it declined', async () => {
  const { id } = control().call(ALICE, { to: ME })
  const rang = await linked.events.waitFor(
    (event) => event.event === 'call.received' && event.data.id === id,
    'call',
  )
  assert.equal(rang.data.from_phone, ALICE)
  const alice = control()
    .accounts()
    .find((account) => account.phone === ALICE)
  assert.equal(rang.data.from_lid, alice?.lid.replace(/:\d+@/, '@'))
  assert.equal(rang.data.video, false)
  assert.equal(rang.data.group, false)
  assert.equal(callOf(id)?.status, 'ringing')
  const rejected = await api('reject_call', { call_id: id })
  assert.equal(rejected.status, 200, JSON.stringify(rejected.body))
  assert.equal(callOf(id)?.status, 'rejected')
  const again = await api('reject_call', { call_id: id })
  assert.equal(again.status, 404)
  assert.equal(again.body.code, 'call_not_found')
})

test('with call rejection on, a video call is rejected at once and the caller gets the text', async () => {
  const set = await api('set_call_rejection', { enable: true, message: 'No calls please: write to us.' })
  assert.equal(set.status, 200, JSON.stringify(set.body))
  await linked.events.waitFor(
    (event) => event.event === 'instance.updated' && (event.data.changed as string[]).includes('calls'),
    'instance.updated',
  )
  const { instance } = await ok(linked.core.apiBase, 'instance', { instance_id: linked.instanceId })
  assert.deepEqual(instance.calls, { reject: true, message: 'No calls please: write to us.' })

  const { id } = control().call(ALICE, { to: ME, video: true })
  const rang = await linked.events.waitFor(
    (event) => event.event === 'call.received' && event.data.id === id,
    'call',
  )
  assert.equal(rang.data.video, true)
  await eventually(
    () => callOf(id)?.status,
    (status) => status === 'rejected',
    'rejected automatically',
  )
  const text = await eventually(
    () =>
      control()
        .inbox(ALICE)
        .find((entry) => entry.text === 'No calls please: write to us.'),
    (entry) => entry !== undefined,
    'the text to the caller',
  )
  await inboxEntry(linked.core.sandbox!, ALICE, text!.id)

  await ok(linked.core.apiBase, 'set_call_rejection', { instance_id: linked.instanceId, enable: false })
  const ringing = control().call(ALICE, { to: ME })
  await linked.events.waitFor(
    (event) => event.event === 'call.received' && event.data.id === ringing.id,
    'call',
  )
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(callOf(ringing.id)?.status, 'ringing', 'calls ring again')
})

test('bad call settings are refused and change nothing', async () => {
  const before = (await ok(linked.core.apiBase, 'instance', { instance_id: linked.instanceId })).instance
    .calls
  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{ enable: 'maybe' }, 400, 'invalid_parameter'],
    [{}, 400, 'missing_parameter'],
    [{ enable: false, message: 'text without rejecting' }, 400, 'invalid_parameter'],
    [{ enable: true, message: 'x'.repeat(1001) }, 400, 'invalid_parameter'],
  ]
  for (const [params, status, code] of cases) {
    const answer = await api('set_call_rejection', params)
    assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
    assert.equal(answer.body.code, code)
  }
  assert.deepEqual(
    (await ok(linked.core.apiBase, 'instance', { instance_id: linked.instanceId })).instance.calls,
    before,
  )
  const unknown = await api('reject_call', { call_id: 'NO-SUCH-CALL' })
  assert.equal(unknown.status, 404)
})
