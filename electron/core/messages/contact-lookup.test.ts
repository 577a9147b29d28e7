import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { TOKEN } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, sha256 } from '../testing/messaging-harness'

const ME = '15550440001'
const ALICE = '15550440002'
const BOB = '15550440003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice', about: 'At the beach' },
  { phone: BOB, name: 'Bob' },
])
const api = linked.api
const aliceLid = () => linked.control.accounts().find((account) => account.phone === ALICE)?.lid

test('numbers on the network answer their chat id and LID, others that they are not; nothing is sent', async () => {
  const inboxes = [ALICE, BOB].map((phone) => linked.control.inbox(phone).length)
  const checked = await api('check_numbers', { numbers: ['+1 (555) 044-0002', '19990004444'] })
  assert.equal(checked.status, 200, JSON.stringify(checked.body))
  assert.deepEqual(checked.body.numbers, [
    { number: ALICE, exists: true, chat_id: `${ALICE}@s.whatsapp.net`, lid: aliceLid() },
    { number: '19990004444', exists: false, chat_id: null, lid: null },
  ])
  const query = await fetch(
    `${linked.core.apiBase}/check_numbers?access_token=${TOKEN}&instance_id=${linked.instanceId}&numbers=${BOB},${ALICE}`,
  )
  const body = await query.json()
  assert.deepEqual(
    body.numbers.map((entry: { number: string; exists: boolean }) => [entry.number, entry.exists]),
    [
      [BOB, true],
      [ALICE, true],
    ],
  )
  const bad = await api('check_numbers', { numbers: [ALICE, 'call me'] })
  assert.equal(bad.status, 400)
  assert.equal(bad.body.code, 'invalid_parameter')
  assert.match(bad.body.message, /call me/)
  assert.deepEqual(
    [ALICE, BOB].map((phone) => linked.control.inbox(phone).length),
    inboxes,
  )
})

test('a profile shows the about text and serves the picture the contact set, through this server', async () => {
  const picture = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c03020' } })
    .jpeg()
    .toBuffer()
  await linked.control.setPicture(ALICE, picture)
  const profile = await api('profile', { number: ALICE })
  assert.equal(profile.status, 200, JSON.stringify(profile.body))
  assert.equal(profile.body.chat, `${ALICE}@s.whatsapp.net`)
  assert.equal(profile.body.about, 'At the beach')
  assert.ok(profile.body.picture_url.startsWith(linked.core.apiBase))
  const download = await fetch(profile.body.picture_url, { headers: { authorization: `Bearer ${TOKEN}` } })
  assert.equal(download.status, 200)
  assert.equal(download.headers.get('content-type'), 'image/jpeg')
  assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(picture))
  const anonymous = await fetch(profile.body.picture_url)
  assert.equal(anonymous.status, 401)
})

test('a contact without a picture has none; an unknown number is refused', async () => {
  const profile = await api('profile', { number: BOB })
  assert.equal(profile.status, 200, JSON.stringify(profile.body))
  assert.equal(profile.body.picture_url, null)
  assert.equal(profile.body.about, 'Hey there! I am using WhatsApp.')
  const unknown = await api('profile', { number: '19990004444' })
  assert.equal(unknown.status, 422)
  assert.equal(unknown.body.code, 'recipient_not_found')
})

test('a blocked contact’s messages stop arriving, it is listed, and unblocking lets them through again', async () => {
  const blocked = await api('block', { number: BOB })
  assert.equal(blocked.status, 200, JSON.stringify(blocked.body))
  assert.deepEqual(blocked.body, { status: 'success', chat: `${BOB}@s.whatsapp.net`, blocked: true })
  const listed = await api('blocked', {})
  assert.deepEqual(
    listed.body.blocked.map((entry: { phone: string }) => entry.phone),
    [BOB],
  )
  const events: string[] = []
  const stop = linked.core.events.live.subscribe((item) => {
    if (item.kind === 'event' && item.stored.envelope.event === 'message.received') {
      events.push(String(item.stored.envelope.data.text))
    }
  })
  try {
    await linked.control.send(BOB, { to: ME, text: 'while blocked' })
    await linked.control.send(ALICE, { to: ME, text: 'from someone else' })
    await eventually(
      () => events,
      (seen) => seen.includes('from someone else'),
      'the other message',
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.ok(!events.includes('while blocked'), 'the blocked contact’s message did not arrive')

    assert.equal((await api('unblock', { number: BOB })).status, 200)
    assert.deepEqual((await api('blocked', {})).body.blocked, [])
    await linked.control.send(BOB, { to: ME, text: 'after unblocking' })
    await eventually(
      () => events,
      (seen) => seen.includes('after unblocking'),
      'the unblocked message',
    )
  } finally {
    stop()
  }
  const unknown = await api('block', { number: '19990004444' })
  assert.equal(unknown.status, 422)
})
