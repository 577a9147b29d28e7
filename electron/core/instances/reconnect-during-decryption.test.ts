import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'
import { waitForStatus } from '../testing/instance-harness'

// A socket that ends while it decrypts a message holds that message's key writes until the app kept it, or
// drops them when it could not (the network then delivers the message again). The socket after it must not
// start beside those writes: it waits for them, then starts on what is durable. Here the test holds the
// instance's key writes itself, as a decryption does, with one write under the hold.
const ME = '15550890001'
const ALICE = '15550890002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

async function roundTrip(text: string) {
  const sent = await linked.api('send_message', {
    number: ALICE,
    type: 'text',
    message: `${text} (to Alice)`,
  })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  const delivered = await inboxEntry(linked.core.sandbox!, ALICE, sent.body.message.key.id)
  assert.equal(delivered.text, `${text} (to Alice)`)
  const { id } = await linked.control.send(ALICE, { to: ME, text: `${text} (from Alice)` })
  const received = await linked.events.waitFor(
    (event) => event.event === 'message.received' && (event.data as any).id === id,
    'Alice’s message',
  )
  assert.equal((received.data as any).text, `${text} (from Alice)`)
}

test('a socket replaced while key writes are held waits for them; once they are dropped it starts on a store read afresh', async () => {
  const { core, instanceId } = linked
  await roundTrip('before')
  const store = core.authStore.forInstance(instanceId)
  const release = store.holdWrites()
  await store.setKeys({ 'reconnect-probe': { held: { n: 1 } } })

  await linked.control.drop(ME, 'close')
  await waitForStatus(core, instanceId, (s) => s.state === 'connecting', 'connecting again')
  // A socket would connect in well under a second here; this one waits for the hold.
  await sleep(1500)
  assert.equal(core.instances.status(instanceId).state, 'connecting', 'no socket starts beside held writes')

  const releasedAt = Date.now()
  release(false)
  await waitForStatus(
    core,
    instanceId,
    (s) => s.state === 'connected' && s.since >= releasedAt,
    'connected once the hold is released',
  )
  const fresh = core.authStore.forInstance(instanceId)
  assert.notEqual(fresh, store, 'the store whose writes were dropped is not used again')
  assert.equal(fresh.usable, true)
  assert.deepEqual(await fresh.getKeys('reconnect-probe', ['held']), {}, 'the dropped write is not there')
  await roundTrip('after')
})
