import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550820001'
const ALICE = '15550820002'

// The phone's owner saved Alice's name before this instance was linked.
const linked = linkedCoreFixture(
  ME,
  [
    { phone: ME, name: 'Front desk' },
    { phone: ALICE, name: 'Alice' },
  ],
  {},
  (control) => control.changeAppState(ME, { chat: ALICE, savedName: 'Alice Cooper' }),
)

/** Alice's entry in contacts once its saved name is `name` (the last one read otherwise, after 10 s). */
async function aliceNamed(name: string): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { status, body } = await linked.api('contacts')
    assert.equal(status, 200, JSON.stringify(body))
    const alice = body.contacts.find((contact: { phone: string | null }) => contact.phone === ALICE)
    if (alice?.saved_name === name || Date.now() > deadline) return alice
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('the name saved on the phone arrives after linking beside the push name, and a rename on the phone follows', async () => {
  const { id } = await linked.control.send(ALICE, { to: ME, text: 'Hi, it is Alice' })
  await linked.events.waitFor((e) => e.event === 'message.received' && e.data.id === id, 'Alice’s message')
  const linkedName = await aliceNamed('Alice Cooper')
  assert.equal(linkedName?.saved_name, 'Alice Cooper', JSON.stringify(linkedName))
  assert.equal(linkedName?.push_name, 'Alice')

  await linked.control.changeAppState(ME, { chat: ALICE, savedName: 'Alice (plumber)' })
  const renamed = await aliceNamed('Alice (plumber)')
  assert.equal(renamed?.saved_name, 'Alice (plumber)', JSON.stringify(renamed))
})
