import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { TOKEN } from '../testing/instance-harness'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550490001'
const ALICE = '15550490002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

test('the about text and picture set through the API are what the network now answers to anyone', async () => {
  const logo = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#20a060' } })
    .png()
    .toBuffer()
  const set = await linked.api('set_profile', { about: 'Open 9 to 5', media_base64: logo.toString('base64') })
  assert.equal(set.status, 200, JSON.stringify(set.body))
  assert.deepEqual(set.body.changed, ['about', 'picture'])
  // The same queries a contact's phone makes: the status (about) and the picture of this account.
  const seen = await linked.api('profile', { number: ME })
  assert.equal(seen.status, 200, JSON.stringify(seen.body))
  assert.equal(seen.body.about, 'Open 9 to 5')
  const picture = await fetch(seen.body.picture_url, { headers: { authorization: `Bearer ${TOKEN}` } })
  assert.equal(picture.status, 200)
  const shown = await sharp(Buffer.from(await picture.arrayBuffer())).metadata()
  assert.equal(shown.format, 'jpeg')
  assert.equal(shown.width, shown.height, 'made square, as the apps show it')
})

test('the display name set through the API is synced to the account and shown to contacts on its messages', async () => {
  const alice = await linkedClient(linked.core.sandbox!, ALICE)
  try {
    const set = await linked.api('set_profile', { name: 'Acme Support' })
    assert.equal(set.status, 200, JSON.stringify(set.body))
    assert.deepEqual(set.body.changed, ['name'])
    const account = linked.control.accounts().find((a) => a.phone === ME)
    assert.equal(account?.name, 'Acme Support', 'the network keeps the name the app-state patch set')
    const deadline = Date.now() + 10_000
    let shown: string | undefined
    while (shown !== 'Acme Support' && Date.now() < deadline) {
      shown = (await linked.api('instance')).body.instance.account?.name
      if (shown !== 'Acme Support') await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal(shown, 'Acme Support', 'the instance shows the new name')
    const sent = await linked.api('send_message', {
      number: ALICE,
      type: 'text',
      message: 'Hello from support',
    })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    const seen = await alice.waitFor(
      () => alice.upserts.find(({ message }) => message.key.id === sent.body.message.key.id),
      'Alice receives the message',
    )
    assert.equal(seen.message.pushName, 'Acme Support')
    const again = await linked.api('set_profile', { name: 'Acme Help' })
    assert.equal(again.status, 200, JSON.stringify(again.body))
    assert.equal(
      linked.control.accounts().find((a) => a.phone === ME)?.name,
      'Acme Help',
      'a second patch follows the first',
    )
  } finally {
    await alice.stop()
  }
})

test('privacy settings are read and changed, and a bad value changes nothing', async () => {
  const before = await linked.api('privacy')
  assert.equal(before.status, 200, JSON.stringify(before.body))
  assert.equal(before.body.privacy.last_seen, 'all')
  const changed = await linked.api('set_privacy', { last_seen: 'contacts', read_receipts: 'none' })
  assert.equal(changed.status, 200, JSON.stringify(changed.body))
  assert.equal(changed.body.privacy.last_seen, 'contacts')
  assert.equal(changed.body.privacy.read_receipts, 'none')
  const refused = await linked.api('set_privacy', { last_seen: 'all', online: 'nobody' })
  assert.equal(refused.status, 400)
  assert.equal(refused.body.code, 'invalid_parameter')
  assert.match(refused.body.message, /online/)
  assert.equal((await linked.api('privacy')).body.privacy.last_seen, 'contacts', 'nothing changed')
})

test('a profile change without anything to change, with a file that is not an image or a long about is refused', async () => {
  const cases: Array<[Record<string, unknown>, number, string]> = [
    [{}, 400, 'missing_parameter'],
    [
      { media_base64: Buffer.from('just some text, not a picture').toString('base64') },
      422,
      'media_unavailable',
    ],
    [{ about: 'x'.repeat(140) }, 400, 'invalid_parameter'],
    [{ name: 'x'.repeat(26) }, 400, 'invalid_parameter'],
    [{ name: '   ' }, 400, 'invalid_parameter'],
  ]
  for (const [params, status, code] of cases) {
    const answer = await linked.api('set_profile', params)
    assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
    assert.equal(answer.body.code, code)
  }
  assert.equal((await linked.api('profile', { number: ME })).body.about, 'Open 9 to 5')
})
