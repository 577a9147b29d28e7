import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'
import { getBinaryNodeChild, getBinaryNodeChildren, getUrlFromDirectPath } from '@whiskeysockets/baileys'
import { request } from 'undici'
import type { Sandbox } from './index'
import { linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'
import { solidPng } from './testing/solid-png'

const OWNER = '15550001111'
const FOLLOWER = '15550002222'
const PHONE = '15551230001'

let sandbox: Sandbox
let owner: SandboxClient
let follower: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: PHONE, name: 'Alice' })
  // One after the other: two links at once on a loaded machine can outlast the fixture's wait for each.
  owner = await linkedClient(sandbox, OWNER)
  follower = await linkedClient(sandbox, FOLLOWER)
})

after(async () => {
  await Promise.all([owner?.stop(), follower?.stop()])
  await sandbox.close()
})

test('a device creates a channel, another follows it by invite and receives its posts as plaintext messages', async () => {
  assert.ok(owner.sock && follower.sock)
  const created = await owner.sock.newsletterCreate('Daily news', 'What happened today')
  assert.match(created.id, /@newsletter$/)
  const byInvite = (await follower.sock.newsletterMetadata('invite', created.invite ?? '')) as unknown as {
    id: string
    viewer_metadata: { role: string }
  }
  assert.equal(byInvite.id, created.id)
  assert.equal(byInvite.viewer_metadata.role, 'GUEST')
  await follower.sock.newsletterFollow(created.id)
  assert.deepEqual(sandbox.control.channels.get(created.id).followers, [FOLLOWER])

  const sent = await owner.sock.sendMessage(created.id, { text: 'first post' })
  const received = await follower.waitForMessage(sent?.key.id ?? '')
  assert.equal(received.key.remoteJid, created.id)
  assert.equal(received.message?.extendedTextMessage?.text, 'first post')
  const kept = sandbox.control.channels.get(created.id).posts
  assert.deepEqual(
    kept.map(({ text, server_id }) => ({ text, server_id })),
    [{ text: 'first post', server_id: 100 }],
  )

  // The follower reads the posts back and reacts to one by its server id.
  const fetched = await follower.sock.newsletterFetchMessages(created.id, 10, 0, 0)
  const messages = getBinaryNodeChildren(
    getBinaryNodeChild(getBinaryNodeChild(fetched, 'message_updates'), 'messages'),
    'message',
  )
  assert.deepEqual(
    messages.map((message) => message.attrs.server_id),
    ['100'],
  )
  await follower.sock.newsletterReactMessage(created.id, '100', '👍')
  assert.deepEqual(sandbox.control.channels.get(created.id).posts[0]?.reactions, { [FOLLOWER]: '👍' })

  await follower.sock.newsletterUnfollow(created.id)
  assert.deepEqual(sandbox.control.channels.get(created.id).followers, [])
})

test("a follower's post is refused with an error ack and reaches no one; unknown channels and queries are errors", async () => {
  assert.ok(owner.sock && follower.sock)
  const channel = await sandbox.control.channels.create(PHONE, { name: 'Alice news' })
  await sandbox.control.channels.follow(OWNER, channel.invite, true)
  await follower.sock.newsletterFollow(channel.id)
  const refused = new Promise<string | undefined>((resolve) =>
    follower.sock?.ws.on('CB:ack,class:message', (node: { attrs: Record<string, string> }) => {
      if (node.attrs.from === channel.id) resolve(node.attrs.error)
    }),
  )
  await follower.sock.sendMessage(channel.id, { text: 'not mine to post' })
  assert.equal(await refused, '403')
  assert.deepEqual(sandbox.control.channels.get(channel.id).posts, [])

  // The phone posts: both following devices receive it.
  const post = await sandbox.control.channels.post(PHONE, channel.id, 'from the phone')
  for (const client of [owner, follower]) {
    const message = await client.waitForMessage(post.id)
    assert.equal(message.message?.conversation, 'from the phone')
  }

  const status = (code: number) => (error: { output?: { statusCode?: number } }) =>
    error.output?.statusCode === code
  await assert.rejects(follower.sock.newsletterFollow('1203630000@newsletter'), status(404))
  await assert.rejects(follower.sock.newsletterAdminCount(channel.id), status(501))
})

test('the phone posts an image to its channel: followers receive it without a media key and fetch its bytes, unencrypted, by its direct path', async () => {
  assert.ok(follower.sock)
  const channel = await sandbox.control.channels.create(PHONE, { name: 'Alice pictures' })
  await follower.sock.newsletterFollow(channel.id)
  const image = solidPng(8, 8, [200, 40, 40])
  const post = await sandbox.control.channels.post(PHONE, channel.id, 'Shop front', {
    data: image,
    mimetype: 'image/png',
  })
  assert.deepEqual([post.type, post.media, post.text], ['media', 'image', 'Shop front'])

  const received = (await follower.waitForMessage(post.id)).message?.imageMessage
  assert.ok(received?.directPath && received.url)
  assert.equal(received.mediaKey ?? null, null)
  assert.equal(received.mimetype, 'image/png')
  assert.equal(Number(received.fileLength), image.length)
  const digest = createHash('sha256').update(image).digest()
  assert.deepEqual(Buffer.from(received.fileSha256 ?? []), digest)

  const fetch = async (path: string) => {
    const answer = await request(getUrlFromDirectPath(path, new URL(received.url ?? '').host), {
      dispatcher: follower.downloadDispatcher,
    })
    return { status: answer.statusCode, body: Buffer.from(await answer.body.arrayBuffer()) }
  }
  const fetched = await fetch(received.directPath)
  assert.equal(fetched.status, 200)
  assert.deepEqual(createHash('sha256').update(fetched.body).digest(), digest)
  // A path the host does not hold is an error, never an empty file.
  const unknown = await fetch(received.directPath.replace(/sandbox_[^.]+/, 'sandbox_unknown'))
  assert.deepEqual([unknown.status, unknown.body.length], [404, 0])

  await assert.rejects(
    sandbox.control.channels.post(PHONE, channel.id, '', { data: image, mimetype: 'application/pdf' }),
    (error: { code?: string }) => error.code === 'invalid_parameter',
  )
  assert.deepEqual(
    sandbox.control.channels.get(channel.id).posts.map((kept) => kept.id),
    [post.id],
  )
})
