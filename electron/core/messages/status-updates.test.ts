import assert from 'node:assert/strict'
import { test } from 'node:test'
import { linkedClient } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, pngBytes, sha256 } from '../testing/messaging-harness'
import { sineAudio } from '../testing/sine-audio'
import { testVideo } from '../testing/test-video'

const ME = '15550480001'
const ALICE = '15550480002'
const BOB = '15550480003'
const CAROL = '15550480004'
const STATUS = 'status@broadcast'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
  { phone: CAROL, name: 'Carol' },
])
const control = () => linked.control
const statusesOf = (phone: string) =>
  control()
    .inbox(phone)
    .filter((entry) => entry.chat === STATUS)

test('a status to nobody (no contacts yet, or an empty list) is refused and nothing is sent', async () => {
  for (const params of [{}, { numbers: [] }]) {
    const refused = await linked.api('post_status', { type: 'text', message: 'Hello all', ...params })
    assert.equal(refused.status, 422, JSON.stringify(refused.body))
    assert.equal(refused.body.code, 'no_recipients')
  }
  const unknown = await linked.api('post_status', { type: 'text', message: 'Hi', numbers: ['15559999999'] })
  assert.equal(unknown.status, 422)
  assert.equal(unknown.body.code, 'recipient_not_found')
  const badLook = await linked.api('post_status', {
    type: 'text',
    message: 'Hi',
    numbers: [ALICE],
    background_color: 'teal',
  })
  assert.equal(badLook.status, 400)
  assert.equal(badLook.body.code, 'invalid_parameter')
  for (const phone of [ALICE, BOB, CAROL]) assert.deepEqual(statusesOf(phone), [], `nothing reached ${phone}`)
  assert.deepEqual((await linked.api('statuses')).body.statuses, [], 'nothing stored')
})

test('a text status posted to a chosen list reaches that contact’s phone and linked device with its look, and nobody else', async () => {
  const device = await linkedClient(linked.core.sandbox!, ALICE)
  try {
    const posted = await linked.api('post_status', {
      type: 'text',
      message: 'Open until 6 pm today',
      background_color: '#1E6F5C',
      font: 1,
      numbers: [ALICE],
    })
    assert.equal(posted.status, 200, JSON.stringify(posted.body))
    assert.deepEqual(posted.body.recipients, [`${ALICE}@s.whatsapp.net`])
    const id = posted.body.message.key.id as string
    assert.equal(posted.body.message.key.remoteJid, STATUS)
    const [entry] = await eventually(
      () => statusesOf(ALICE).filter((e) => e.id === id),
      (found) => found.length === 1,
      'Alice’s phone got the status',
    )
    assert.equal(entry?.text, 'Open until 6 pm today')
    assert.equal(entry?.from, ME)
    const received = await device.waitForMessage(id)
    assert.equal(received.key.remoteJid, STATUS)
    const text = received.message?.extendedTextMessage
    assert.equal(text?.text, 'Open until 6 pm today')
    assert.equal(text?.backgroundArgb, 0xff1e6f5c)
    assert.equal(text?.font, 1)
    for (const phone of [BOB, CAROL]) assert.ok(!statusesOf(phone).some((e) => e.id === id), `not ${phone}`)
    const sent = await linked.events.waitFor(
      (event) => event.event === 'status.sent' && event.data.id === id,
      'status.sent',
    )
    assert.deepEqual(sent.data.recipients, [`${ALICE}@s.whatsapp.net`])
    assert.equal(sent.data.source, 'api')
    assert.deepEqual(sent.data.status_look, { background_color: '#FF1E6F5C', font: 1 })
    const listed = (await linked.api('statuses')).body.statuses as Array<{
      id: string
      from_me: boolean
      status_look: unknown
    }>
    const own = listed.find((status) => status.id === id)
    assert.equal(own?.from_me, true)
    assert.deepEqual(own?.status_look, { background_color: '#FF1E6F5C', font: 1 })
  } finally {
    await device.stop()
  }
})

test('a status to all contacts goes to those who wrote to the account: image, video and voice', async () => {
  const { id: hello } = await control().send(BOB, { to: ME, text: 'Hello there' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === hello,
    'Bob’s message',
  )
  const image = pngBytes(4096)
  const video = await testVideo()
  const voice = await sineAudio('wav', 1)
  const notAVideo = await linked.api('post_status', { type: 'video', media_base64: image.toString('base64') })
  assert.equal(notAVideo.status, 422, JSON.stringify(notAVideo.body))
  assert.equal(notAVideo.body.code, 'media_unavailable')
  for (const [type, file, kind] of [
    ['image', image, 'image'],
    ['video', video, 'video'],
    ['voice', voice, 'audio'],
  ] as const) {
    const posted = await linked.api('post_status', {
      type,
      media_base64: file.toString('base64'),
      ...(type === 'voice' ? { background_color: '#FF0000' } : { message: 'New stock' }),
    })
    assert.equal(posted.status, 200, JSON.stringify(posted.body))
    assert.deepEqual(posted.body.recipients, [`${BOB}@s.whatsapp.net`], 'Bob wrote; Alice and Carol did not')
    const id = posted.body.message.key.id as string
    const [entry] = await eventually(
      () => statusesOf(BOB).filter((e) => e.id === id),
      (found) => found.length === 1,
      `Bob’s phone got the ${type} status`,
    )
    assert.equal(entry?.type, kind)
    if (type === 'voice') assert.equal(entry?.ptt, true, 'a voice note')
    else {
      assert.equal(entry?.sha256, sha256(file))
      assert.equal(entry?.caption, 'New stock')
    }
    for (const phone of [ALICE, CAROL]) assert.ok(!statusesOf(phone).some((e) => e.id === id), `not ${phone}`)
  }
})

test('a contact’s status arrives as status.received only while ignore_status is off, and view_status sends the read receipt its poster sees', async () => {
  const unheard = await control().send(BOB, { to: STATUS, text: 'Out of office today' })
  const direct = await control().send(BOB, { to: ME, text: 'after my status' })
  await linked.events.waitFor(
    (event) => event.event === 'message.received' && event.data.id === direct.id,
    'the 1:1 message after it',
  )
  assert.ok(!linked.events.seen.some((event) => event.data.id === unheard.id), 'ignored: not surfaced')
  assert.ok(
    statusesOf(ALICE).some((e) => e.id === unheard.id),
    'the network did send it to Bob’s contacts',
  )
  const ignored = await linked.api('view_status', { status_id: unheard.id })
  assert.equal(ignored.status, 404)
  assert.equal(ignored.body.code, 'status_not_found')

  await linked.api('update_instance', { ignore_status: false })
  const heard = await control().send(BOB, { to: STATUS, text: 'Back tomorrow' })
  const event = await linked.events.waitFor(
    (candidate) => candidate.event === 'status.received' && candidate.data.id === heard.id,
    'status.received',
  )
  assert.equal(event.data.chat, STATUS)
  assert.equal(event.data.text, 'Back tomorrow')
  assert.equal(event.data.sender_phone, BOB)
  assert.equal(event.data.status_look, null, 'a plain text status has no look')
  assert.ok(!linked.events.seen.some((e) => e.event === 'message.received' && e.data.id === heard.id))
  assert.ok(!control().reads(BOB).includes(heard.id), 'not viewed yet')

  const viewed = await linked.api('view_status', { status_id: heard.id })
  assert.equal(viewed.status, 200, JSON.stringify(viewed.body))
  await eventually(
    () => control().reads(BOB),
    (ids) => ids.includes(heard.id),
    'Bob sees his status viewed',
  )
  for (const id of ['3EB0000000000000000000', direct.id]) {
    const refused = await linked.api('view_status', { status_id: id })
    assert.equal(refused.status, 404, id)
    assert.equal(refused.body.code, 'status_not_found')
  }
})

test('a contact’s status posted with a background and a font arrives with its look, in the event and in statuses', async () => {
  await linked.api('update_instance', { ignore_status: false })
  const bobs = await linkedClient(linked.core.sandbox!, BOB)
  try {
    const posted = await bobs.sock!.sendMessage(
      STATUS,
      { text: 'Closed for the holiday' },
      { backgroundColor: '#FF8A2BE2', font: 3, statusJidList: [`${ME}@s.whatsapp.net`] },
    )
    const id = posted!.key.id!
    const event = await linked.events.waitFor(
      (candidate) => candidate.event === 'status.received' && candidate.data.id === id,
      'the styled status',
    )
    assert.equal(event.data.text, 'Closed for the holiday')
    assert.deepEqual(event.data.status_look, { background_color: '#FF8A2BE2', font: 3 })
    const listed = (await linked.api('statuses')).body.statuses as Array<{ id: string; status_look: unknown }>
    assert.deepEqual(listed.find((status) => status.id === id)?.status_look, {
      background_color: '#FF8A2BE2',
      font: 3,
    })
  } finally {
    await bobs.stop()
  }
})
