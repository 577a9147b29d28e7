import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { call, waitForStatus } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, pngBytes, sha256, startFileServer, TOKEN } from '../testing/messaging-harness'

const ME = '15550300001'
const ALICE = '15550300002'
const BOB = '15550300003'
const NOBODY = '15550399999'

const PNG = pngBytes(4096)
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 0x20), Buffer.from('\n%%EOF\n')])

const MP4 = Buffer.concat([
  Buffer.from('\0\0\0\x18ftypisom\0\0\x02\0isomiso2', 'latin1'),
  Buffer.alloc(2000, 1),
])
const MP3 = Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\0', 'latin1'), Buffer.alloc(2000, 0)])

const linked = linkedCoreFixture(
  ME,
  [
    { phone: ALICE, name: 'Alice' },
    { phone: BOB, name: 'Bob' },
  ],
  { limits: { mediaBytes: 2 * 1024 * 1024 } },
  // The contacts read what they get at once (sandbox phones leave messages unread by default).
  async (control) => {
    for (const phone of [ALICE, BOB]) await control.setBehaviour(phone, { reads: 'instantly' })
  },
)
let files: Awaited<ReturnType<typeof startFileServer>>

before(async () => {
  files = await startFileServer({
    '/photo.png': { type: 'image/png', body: PNG },
    '/files/report.pdf': { type: 'application/pdf', body: PDF },
    '/clip.mp4': { type: 'video/mp4', body: MP4 },
    '/song': { type: 'application/octet-stream', body: MP3 },
    '/page.html': { type: 'text/html', body: Buffer.from('<html></html>') },
    '/huge.bin': { type: 'application/octet-stream', body: Buffer.alloc(2 * 1024 * 1024 + 1) },
  })
})

after(async () => {
  await files.close()
})

const inbox = (phone: string) => linked.control.inbox(phone)

function send(params: Record<string, unknown>) {
  return call(linked.core.apiBase, 'send_message', { instance_id: linked.instanceId, ...params })
}

describe('sending', () => {
  test('text to a number (seed JSON POST): answered once acknowledged, in the inbox, then delivered and read', async () => {
    const { status, body } = await send({ number: '+1 (555) 030-0002', type: 'text', message: 'Hello Alice' })
    assert.equal(status, 200, JSON.stringify(body))
    assert.equal(body.status, 'success')
    const { key, message, messageTimestamp } = body.message
    assert.deepEqual(Object.keys(body.message).sort(), ['key', 'message', 'messageTimestamp'])
    assert.deepEqual(key, { remoteJid: `${ALICE}@s.whatsapp.net`, fromMe: true, id: key.id })
    assert.match(key.id, /^[0-9A-F]{10,}$/)
    assert.deepEqual(message, { extendedTextMessage: { text: 'Hello Alice' } })
    assert.match(messageTimestamp, /^\d{10}$/)

    const [entry] = await eventually(
      () => inbox(ALICE).filter((e) => e.id === key.id),
      (found) => found.length === 1,
      'text in inbox',
    )
    assert.equal(entry?.text, 'Hello Alice')
    assert.equal(entry?.from, ME)

    const sent = await linked.events.waitFor(
      (e) => e.event === 'message.sent' && e.data.id === key.id,
      'message.sent',
    )
    assert.equal(sent.data.source, 'api')
    assert.equal(sent.data.text, 'Hello Alice')
    assert.equal(sent.data.chat, `${ALICE}@s.whatsapp.net`)
    for (const state of ['sent', 'delivered', 'read']) {
      const update = await linked.events.waitFor(
        (e) => e.event === 'message.status' && e.data.id === key.id && e.data.status === state,
        `message.status ${state}`,
      )
      assert.equal(update.data.chat, `${ALICE}@s.whatsapp.net`)
    }
  })

  test('GET with a query string, a form body, and the send alias all send', async () => {
    const query = new URLSearchParams({
      access_token: TOKEN,
      instance_id: linked.instanceId,
      number: ALICE,
      type: 'text',
      message: 'via GET',
    })
    const viaGet = await fetch(`${linked.core.apiBase}/send_message?${query}`)
    assert.equal(viaGet.status, 200)
    const form = new URLSearchParams({
      access_token: TOKEN,
      instance_id: linked.instanceId,
      number: ALICE,
      type: 'text',
      message: 'via form',
    })
    const viaForm = await fetch(`${linked.core.apiBase}/send_message`, { method: 'POST', body: form })
    assert.equal(viaForm.status, 200)
    const viaAlias = await call(linked.core.apiBase, 'send', {
      instance_id: linked.instanceId,
      number: ALICE,
      type: 'text',
      message: 'via alias',
    })
    assert.equal(viaAlias.status, 200)
    const ids = [
      (await viaGet.json()).message.key.id,
      (await viaForm.json()).message.key.id,
      viaAlias.body.message.key.id,
    ]
    const texts = await eventually(
      () =>
        inbox(ALICE)
          .filter((e) => ids.includes(e.id))
          .map((e) => e.text),
      (found) => found.length === 3,
      'three texts',
    )
    assert.deepEqual(texts, ['via GET', 'via form', 'via alias'])
  })

  test('text and an image to a group reach every member (send_group alias)', async () => {
    const { groupId } = await linked.control.createGroup({
      subject: 'Team',
      participants: [ALICE, ME, BOB],
    })
    const text = await call(linked.core.apiBase, 'send_group', {
      instance_id: linked.instanceId,
      number: groupId,
      type: 'text',
      message: 'Hi team',
    })
    assert.equal(text.status, 200, JSON.stringify(text.body))
    assert.equal(text.body.message.key.remoteJid, groupId)
    const image = await send({
      number: groupId,
      type: 'media',
      media_url: files.url('/photo.png'),
      message: 'Team photo',
    })
    assert.equal(image.status, 200, JSON.stringify(image.body))
    for (const member of [ALICE, BOB]) {
      const got = await eventually(
        () => inbox(member).filter((e) => e.chat === groupId),
        (found) => found.length === 2,
        `group messages for ${member}`,
      )
      assert.equal(got[0]?.text, 'Hi team')
      assert.equal(got[1]?.sha256, sha256(PNG))
      assert.equal(got[1]?.caption, 'Team photo')
    }
    // Group receipts come per member, named as the network addresses them in the group (here by LID), with
    // the member's phone number and LID beside it.
    for (const member of [ALICE, BOB]) {
      const lid = linked.core
        .sandbox!.control.accounts()
        .find((a) => a.phone === member)!
        .lid.replace(/:\d+@/, '@')
      const receipt = await linked.events.waitFor(
        (e) =>
          e.event === 'message.status' &&
          e.data.id === text.body.message.key.id &&
          e.data.status === 'read' &&
          [member, lid].some((id) => String(e.data.recipient).startsWith(id)),
        `read receipt of ${member}`,
      )
      assert.equal(receipt.data.chat, groupId)
      assert.equal(receipt.data.recipient_phone, member)
      assert.equal(receipt.data.recipient_lid, lid)
    }
  })

  test('an image by URL arrives byte-identical with its caption; the answer shows no media keys', async () => {
    const { status, body } = await send({
      number: BOB,
      type: 'media',
      media_url: files.url('/photo.png'),
      message: 'A photo',
    })
    assert.equal(status, 200, JSON.stringify(body))
    const image = body.message.message.imageMessage
    assert.equal(image.mimetype, 'image/png')
    assert.equal(image.caption, 'A photo')
    assert.equal(String(image.fileLength), String(PNG.length))
    for (const secret of ['mediaKey', 'url', 'directPath', 'fileEncSha256', 'jpegThumbnail']) {
      assert.equal(secret in image, false, secret)
    }
    const [entry] = await eventually(
      () => inbox(BOB).filter((e) => e.id === body.message.key.id),
      (found) => found.length === 1,
      'image in inbox',
    )
    assert.equal(entry?.type, 'image')
    assert.equal(entry?.sha256, sha256(PNG))
    assert.equal(entry?.size, PNG.length)
    assert.equal(entry?.caption, 'A photo')
  })

  test('a document by URL keeps its filename and caption; filename turns an image into a document', async () => {
    const pdf = await send({
      number: BOB,
      type: 'media',
      media_url: files.url('/files/report.pdf'),
      message: 'Report',
    })
    assert.equal(pdf.status, 200, JSON.stringify(pdf.body))
    const named = await send({
      number: BOB,
      type: 'media',
      media_url: files.url('/photo.png'),
      filename: 'scan.png',
    })
    assert.equal(named.status, 200, JSON.stringify(named.body))
    assert.equal(named.body.message.message.documentMessage.fileName, 'scan.png')
    const ids = [pdf.body.message.key.id, named.body.message.key.id]
    const entries = await eventually(
      () => inbox(BOB).filter((e) => ids.includes(e.id)),
      (found) => found.length === 2,
      'documents in inbox',
    )
    assert.deepEqual(
      entries.map((e) => [e.type, e.filename, e.caption, e.sha256]),
      [
        ['document', 'report.pdf', 'Report', sha256(PDF)],
        ['document', 'scan.png', null, sha256(PNG)],
      ],
    )
  })

  test('video and audio by URL are typed from their bytes and sent as such (audio without caption)', async () => {
    const video = await send({
      number: BOB,
      type: 'media',
      media_url: files.url('/clip.mp4'),
      message: 'A clip',
    })
    assert.equal(video.status, 200, JSON.stringify(video.body))
    assert.equal(video.body.message.message.videoMessage.mimetype, 'video/mp4')
    const audio = await send({
      number: BOB,
      type: 'media',
      media_url: files.url('/song'),
      message: 'ignored',
    })
    assert.equal(audio.status, 200, JSON.stringify(audio.body))
    assert.equal(audio.body.message.message.audioMessage.mimetype, 'audio/mpeg')
    const ids = [video.body.message.key.id, audio.body.message.key.id]
    const entries = await eventually(
      () => inbox(BOB).filter((e) => ids.includes(e.id)),
      (found) => found.length === 2,
      'video and audio in inbox',
    )
    assert.deepEqual(
      entries.map((e) => [e.type, e.sha256, e.caption]),
      [
        ['video', sha256(MP4), 'A clip'],
        ['audio', sha256(MP3), null],
      ],
    )
  })

  test('the same idempotency key never sends twice (parameter or header)', async () => {
    const params = { number: ALICE, type: 'text', message: 'only once', idempotency_key: 'order-42' }
    const [first, second] = await Promise.all([send(params), send(params)])
    const third = await send(params)
    const viaHeader = await fetch(`${linked.core.apiBase}/send_message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'order-42' },
      body: JSON.stringify({
        access_token: TOKEN,
        instance_id: linked.instanceId,
        number: ALICE,
        type: 'text',
        message: 'only once',
      }),
    })
    const fourth = await viaHeader.json()
    const ids = new Set([first.body, second.body, third.body, fourth].map((b) => b.message.key.id))
    assert.equal(ids.size, 1)
    await eventually(
      () => inbox(ALICE).filter((e) => e.text === 'only once'),
      (found) => found.length === 1,
      'one message',
    )
    const other = await send({ ...params, message: 'something else' })
    assert.equal(other.status, 409)
    assert.equal(other.body.code, 'conflict')
  })

  test('a number that is not on the network is 422 recipient_not_found', async () => {
    const { status, body } = await send({ number: NOBODY, type: 'text', message: 'hello?' })
    assert.equal(status, 422)
    assert.equal(body.code, 'recipient_not_found')
    assert.match(body.message, new RegExp(NOBODY))
  })

  test('a group that does not exist, or that the account is not in, is 422 recipient_not_found', async () => {
    const { groupId } = await linked.control.createGroup({
      subject: 'Not ours',
      participants: [ALICE, BOB],
    })
    for (const number of [groupId, '120363000000000001@g.us']) {
      const { status, body } = await send({ number, type: 'text', message: 'hello?' })
      assert.equal(status, 422, JSON.stringify(body))
      assert.equal(body.code, 'recipient_not_found')
      assert.match(body.message, new RegExp(number))
    }
    assert.equal(inbox(ALICE).filter((e) => e.chat === groupId).length, 0, 'nothing reached the group')
  })

  test('bad input gets its code naming the field, and nothing is sent', async () => {
    const before = inbox(ALICE).length
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ number: ALICE, type: 'text' }, 400, 'missing_parameter', /message/],
      [{ number: ALICE, type: 'text', message: '' }, 400, 'missing_parameter', /message/],
      [{ type: 'text', message: 'x' }, 400, 'missing_parameter', /number/],
      [{ number: ALICE, message: 'x' }, 400, 'missing_parameter', /type/],
      [{ number: ALICE, type: 'sticker', message: 'x' }, 400, 'invalid_parameter', /type/],
      [{ number: 'not a number', type: 'text', message: 'x' }, 400, 'invalid_parameter', /number/],
      [{ number: 15550300002, type: 'text', message: 'x' }, 400, 'invalid_parameter', /number/],
      [{ number: ALICE, type: 'text', message: ['x'] }, 400, 'invalid_parameter', /message/],
      [{ number: ALICE, type: 'text', message: 'x'.repeat(65_537) }, 413, 'payload_too_large', /message/],
      [{ number: ALICE, type: 'media', message: 'x' }, 400, 'missing_parameter', /media_url/],
      [
        { number: ALICE, type: 'media', media_url: 'ftp://example.com/a.png' },
        400,
        'invalid_parameter',
        /media_url/,
      ],
      [
        { number: ALICE, type: 'media', media_url: files.url('/missing.png') },
        422,
        'media_unavailable',
        /404/,
      ],
      [
        { number: ALICE, type: 'media', media_url: files.url('/page.html') },
        422,
        'media_unavailable',
        /web page/,
      ],
      [
        { number: ALICE, type: 'media', media_url: files.url('/huge.bin'), filename: 'x.bin' },
        413,
        'payload_too_large',
        /media_url/,
      ],
      [
        { number: ALICE, type: 'media', media_url: files.url('/photo.png'), filename: '../x' },
        400,
        'invalid_parameter',
        /filename/,
      ],
    ]
    for (const [params, status, code, pattern] of cases) {
      const answer = await send(params)
      assert.equal(
        answer.status,
        status,
        `${JSON.stringify(params).slice(0, 80)} → ${JSON.stringify(answer.body)}`,
      )
      assert.equal(answer.body.code, code)
      assert.match(answer.body.message, pattern)
    }
    const notConnected = (await call(linked.core.apiBase, 'create_instance')).body.instance_id
    const idle = await call(linked.core.apiBase, 'send_message', {
      instance_id: notConnected,
      number: ALICE,
      type: 'text',
      message: 'x',
    })
    assert.equal(idle.status, 409)
    assert.equal(idle.body.code, 'not_connected')
    assert.match(idle.body.message, /not linked.*link it first/)
    const unknown = await call(linked.core.apiBase, 'send_message', {
      instance_id: 'NOPE',
      number: ALICE,
      type: 'text',
      message: 'x',
    })
    assert.equal(unknown.status, 404)
    assert.equal(inbox(ALICE).length, before)
  })
})

describe('receiving', () => {
  test('an incoming text becomes message.received with chat, sender and text', async () => {
    const { id } = await linked.control.send(ALICE, { to: ME, text: 'Hi there' })
    const received = await linked.events.waitFor(
      (e) => e.event === 'message.received' && e.data.id === id,
      'message.received',
    )
    assert.equal(received.instance_id, linked.instanceId)
    assert.equal(received.data.type, 'text')
    assert.equal(received.data.text, 'Hi there')
    assert.equal(received.data.from_me, false)
    assert.equal(received.data.chat, `${ALICE}@s.whatsapp.net`)
    assert.equal(received.data.sender_phone, ALICE)
    assert.equal(received.data.is_group, false)
    assert.match(String(received.data.timestamp), /^\d{10}$/)
  })

  test('incoming media becomes message.received with media info and a download URL for the same bytes', async () => {
    const { id } = await linked.control.send(BOB, {
      to: ME,
      media: { data: PDF, mimetype: 'application/pdf', filename: 'invoice.pdf', caption: 'Your invoice' },
    })
    const received = await linked.events.waitFor(
      (e) => e.event === 'message.received' && e.data.id === id,
      'media received',
    )
    const media = received.data.media as Record<string, unknown>
    assert.equal(received.data.type, 'document')
    assert.equal(received.data.caption, 'Your invoice')
    assert.equal(media.filename, 'invoice.pdf')
    assert.equal(media.mimetype, 'application/pdf')
    assert.equal(media.size, PDF.length)
    assert.equal(media.sha256, sha256(PDF))
    assert.match(String(media.download_url), /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/media\//)
    const refused = await fetch(String(media.download_url))
    assert.equal(refused.status, 401)
    for (let round = 0; round < 2; round++) {
      const download = await fetch(String(media.download_url), {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      assert.equal(download.status, 200)
      assert.equal(download.headers.get('content-type'), 'application/pdf')
      assert.match(String(download.headers.get('content-disposition')), /invoice\.pdf/)
      assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(PDF))
    }
  })

  test('a group message names the group and the member who wrote it', async () => {
    const { groupId } = await linked.control.createGroup({
      subject: 'Club',
      participants: [BOB, ME, ALICE],
    })
    const { id } = await linked.control.send(ALICE, { to: groupId, text: 'Hello club' })
    const received = await linked.events.waitFor(
      (e) => e.event === 'message.received' && e.data.id === id,
      'group message',
    )
    assert.equal(received.data.chat, groupId)
    assert.equal(received.data.is_group, true)
    assert.equal(received.data.sender, `${ALICE}@s.whatsapp.net`)
    assert.equal(received.data.text, 'Hello club')
  })

  test('a message sent from the phone becomes message.sent with source phone', async () => {
    const { id } = await linked.control.send(ME, { to: ALICE, text: 'typed on the phone' })
    const sent = await linked.events.waitFor(
      (e) => e.event === 'message.sent' && e.data.id === id,
      'phone send',
    )
    assert.equal(sent.data.source, 'phone')
    assert.equal(sent.data.from_me, true)
    assert.equal(sent.data.text, 'typed on the phone')
    assert.equal(sent.data.chat, `${ALICE}@s.whatsapp.net`)
  })

  test('messages that arrived while disconnected come once after the reconnect', async () => {
    await linked.control.drop(ME, 'close')
    await waitForStatus(linked.core, linked.instanceId, (s) => s.state !== 'connected', 'disconnect')
    const { id } = await linked.control.send(BOB, { to: ME, text: 'while you were away' })
    await waitForStatus(linked.core, linked.instanceId, (s) => s.state === 'connected', 'reconnect')
    const received = await linked.events.waitFor(
      (e) => e.event === 'message.received' && e.data.id === id,
      'offline message',
    )
    assert.equal(received.data.text, 'while you were away')
    const { id: later } = await linked.control.send(BOB, { to: ME, text: 'and now live' })
    await linked.events.waitFor((e) => e.event === 'message.received' && e.data.id === later, 'live message')
    assert.equal(
      linked.events.seen.filter((e) => e.event === 'message.received' && e.data.id === id).length,
      1,
    )
  })

  test('a LID-addressed message names the sender by phone number and by LID', async () => {
    const alice = linked.control.accounts().find((a) => a.phone === ALICE)!
    const { id } = await linked.control.send(ALICE, { to: ME, text: 'from my LID', addressing: 'lid' })
    const received = await linked.events.waitFor(
      (e) => e.event === 'message.received' && e.data.id === id,
      'LID message',
    )
    assert.equal(received.data.sender_phone, ALICE)
    assert.equal(received.data.sender_lid, alice.lid.replace(/:\d+@/, '@'))
    assert.equal(received.data.text, 'from my LID')
  })
})

test('a chat id given as a LID is sent to as is', async () => {
  const alice = linked.control.accounts().find((a) => a.phone === ALICE)!
  const lid = alice.lid.replace(/:\d+@/, '@')
  const { status, body } = await send({ number: lid, type: 'text', message: 'to your LID' })
  assert.equal(status, 200, JSON.stringify(body))
  assert.equal(body.message.key.remoteJid, lid)
  await eventually(
    () => inbox(ALICE).filter((e) => e.id === body.message.key.id),
    (found) => found.length === 1,
    'LID send in inbox',
  )
})
