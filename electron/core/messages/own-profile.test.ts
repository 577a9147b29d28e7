import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { TOKEN } from '../instances/testing/instance-harness'
import { linkedCoreFixture } from './testing/linked-core'

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
  ]
  for (const [params, status, code] of cases) {
    const answer = await linked.api('set_profile', params)
    assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
    assert.equal(answer.body.code, code)
  }
  assert.equal((await linked.api('profile', { number: ME })).body.about, 'Open 9 to 5')
})
