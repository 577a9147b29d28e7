import assert from 'node:assert/strict'
import { test } from 'node:test'
import { generateMessageIDV2 } from '@whiskeysockets/baileys'
import { linkedClient } from '@linkdesk/sandbox/testing'
import type { LinkdeskEvent } from '../contract/events'
import { call } from '../testing/instance-harness'
import { linkedCoreFixture } from '../testing/linked-core'
import { linkedInstance, pngBytes, sha256, TOKEN } from '../testing/messaging-harness'

const ME = '15550710001'
const FOLLOWER = '15550710002'
const ALICE = '15550710003'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

/** A second account's instance on the same core: a follower on the other side. */
let follower: string
let channelId: string

function onFollower(operation: string, params: Record<string, unknown> = {}) {
  return call(linked.core.apiBase, operation, { instance_id: follower, ...params })
}

async function ok(answer: Promise<{ status: number; body: any }>) {
  const { status, body } = await answer
  assert.equal(status, 200, JSON.stringify(body))
  return body
}

/** GET of a post's file through the API, with the access token. */
async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const answer = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
  return {
    status: answer.status,
    type: answer.headers.get('content-type'),
    body: Buffer.from(await answer.arrayBuffer()),
  }
}

function mediaUrl(instanceId: string, channel: string, postId: string): string {
  return `${linked.core.apiBase}/channel_media/${instanceId}/${encodeURIComponent(channel)}/${postId}`
}

function postEvent(instanceId: string, postId: string): Promise<LinkdeskEvent> {
  return linked.events.waitFor(
    (event) =>
      event.event === 'channel.post' &&
      event.instance_id === instanceId &&
      (event.data as { post_id: string }).post_id === postId,
    `channel.post ${postId}`,
  )
}

test("a channel made through the API: another account's instance follows it by link, its posts reach that instance as channel.post, it reads and reacts", async () => {
  follower = await linkedInstance(linked.core, FOLLOWER)
  const created = await ok(linked.api('create_channel', { name: 'Acme news', description: 'What is new' }))
  channelId = created.channel.id
  assert.match(channelId, /^\d+@newsletter$/)
  assert.equal(created.channel.role, 'owner')
  assert.equal(linked.control.channels.get(channelId).owner, ME)

  const followed = await ok(onFollower('follow_channel', { channel: created.channel.link }))
  assert.equal(followed.channel.role, 'follower')
  assert.deepEqual(linked.control.channels.get(channelId).followers, [FOLLOWER])
  const listed = await ok(onFollower('channels'))
  assert.deepEqual(
    listed.channels.map((channel: any) => [channel.id, channel.role]),
    [[channelId, 'follower']],
  )

  const posted = await ok(linked.api('post_channel', { channel_id: channelId, text: 'Opening hours change' }))
  assert.equal(posted.post_id, '100')
  const event = await postEvent(follower, posted.post_id)
  assert.deepEqual(
    { ...event.data, timestamp: undefined },
    {
      channel_id: channelId,
      post_id: '100',
      message_id: posted.message_id,
      timestamp: undefined,
      type: 'text',
      text: 'Opening hours change',
      caption: null,
      media: null,
      reactions: [],
    },
  )
  assert.deepEqual(
    linked.control.channels.get(channelId).posts.map((post) => [post.server_id, post.text]),
    [[100, 'Opening hours change']],
  )

  const read = await ok(onFollower('channel_posts', { channel_id: channelId, count: 5 }))
  assert.deepEqual(
    read.posts.map((post: any) => [post.post_id, post.text]),
    [['100', 'Opening hours change']],
  )
  await ok(onFollower('react_channel', { channel_id: channelId, post_id: '100', emoji: '🎉' }))
  assert.deepEqual(linked.control.channels.get(channelId).posts[0]?.reactions, { [FOLLOWER]: '🎉' })
  const reread = await ok(linked.api('channel_posts', { channel_id: channelId }))
  assert.deepEqual(reread.posts[0].reactions, [{ emoji: '🎉', count: 1 }])
})

test('an image posted with a caption reaches the follower as an image post, whose file the follower downloads: the bytes posted', async () => {
  const image = pngBytes(6000)
  const posted = await ok(
    linked.api('post_channel', {
      channel_id: channelId,
      text: 'New shop front',
      media_base64: image.toString('base64'),
    }),
  )
  const event = await postEvent(follower, posted.post_id)
  const data = event.data as any
  assert.equal(data.type, 'image')
  assert.equal(data.caption, 'New shop front')
  assert.equal(data.media.mimetype, 'image/png')
  assert.equal(linked.control.channels.get(channelId).posts.at(-1)?.media, 'image')

  assert.equal(data.media.download_url, mediaUrl(follower, channelId, posted.post_id))
  const file = await download(data.media.download_url)
  assert.equal(file.status, 200, file.body.toString())
  assert.equal(file.type, 'image/png')
  assert.equal(sha256(file.body), sha256(image))
  const read = await ok(onFollower('channel_posts', { channel_id: channelId }))
  const listed = read.posts.find((post: any) => post.post_id === posted.post_id)
  assert.equal(listed.media.download_url, data.media.download_url)
  assert.equal(read.posts.find((post: any) => post.post_id === '100').media, null)
})

test('unfollowing takes the account off the channel in the network', async () => {
  const left = await ok(onFollower('unfollow_channel', { channel: channelId }))
  assert.equal(left.channel.role, 'guest')
  assert.deepEqual(linked.control.channels.get(channelId).followers, [])
})

test("a contact's channel: the app follows it and the contact's post arrives as channel.post", async () => {
  const alices = await linked.control.channels.create(ALICE, { name: 'Alice daily' })
  await ok(linked.api('follow_channel', { channel: alices.invite }))
  assert.deepEqual(linked.control.channels.get(alices.id).followers, [ME])
  const post = await linked.control.channels.post(ALICE, alices.id, 'Good morning')
  const event = await postEvent(linked.instanceId, String(post.server_id))
  assert.equal((event.data as any).channel_id, alices.id)
  assert.equal((event.data as any).text, 'Good morning')
  assert.equal((event.data as any).message_id, post.id)
})

test("a contact's phone posts an image to its channel: the app, following it, downloads the file, the bytes posted; a text post, an unknown post or channel → clear 404s", async () => {
  const alices = linked.control.channels.list().find((channel) => channel.owner === ALICE)
  assert.ok(alices)
  const image = pngBytes(9000)
  const post = await linked.control.channels.post(ALICE, alices.id, 'Fresh bread', {
    data: image,
    mimetype: 'image/png',
  })
  const event = await postEvent(linked.instanceId, String(post.server_id))
  const data = event.data as any
  assert.deepEqual([data.type, data.caption, data.media.mimetype], ['image', 'Fresh bread', 'image/png'])
  const file = await download(data.media.download_url)
  assert.equal(file.status, 200, file.body.toString())
  assert.equal(sha256(file.body), sha256(image))

  const textPost = alices.posts.find((kept) => kept.media === null)
  assert.ok(textPost)
  const noFile = await download(mediaUrl(linked.instanceId, alices.id, String(textPost.server_id)))
  assert.equal(noFile.status, 404)
  assert.equal(JSON.parse(noFile.body.toString()).code, 'post_without_media')
  const unknownPost = await download(mediaUrl(linked.instanceId, alices.id, '999'))
  assert.equal(unknownPost.status, 404)
  assert.equal(JSON.parse(unknownPost.body.toString()).code, 'post_not_found')
  const unknownChannel = await download(mediaUrl(linked.instanceId, '120363999999999999@newsletter', '100'))
  assert.equal(unknownChannel.status, 404)
  assert.equal(JSON.parse(unknownChannel.body.toString()).code, 'channel_not_found')
  const badId = await download(mediaUrl(linked.instanceId, alices.id, 'latest'))
  assert.equal(badId.status, 400)
  assert.equal(JSON.parse(badId.body.toString()).code, 'invalid_parameter')
})

test("a contact's linked Baileys device posts an image to its channel: the app downloads the bytes posted; a post whose file does not match the SHA-256 it states → 502 upstream_failed", async () => {
  const alices = linked.control.channels.list().find((channel) => channel.owner === ALICE)
  assert.ok(alices)
  const device = await linkedClient(linked.core.sandbox!, ALICE)
  try {
    assert.ok(device.sock)
    const image = pngBytes(7000)
    const sent = await device.sock.sendMessage(alices.id, { image, caption: 'From the desk' })
    const byMessage = (id: string) =>
      linked.events.waitFor(
        (event) =>
          event.event === 'channel.post' &&
          event.instance_id === linked.instanceId &&
          (event.data as { message_id: string }).message_id === id,
        `channel.post ${id}`,
      )
    const event = await byMessage(sent?.key.id ?? '')
    const file = await download((event.data as any).media.download_url)
    assert.equal(file.status, 200, file.body.toString())
    assert.equal(sha256(file.body), sha256(image))

    const imageMessage = sent?.message?.imageMessage
    assert.ok(imageMessage?.directPath)
    const tamperedId = generateMessageIDV2(device.sock.user?.id)
    await device.sock.relayMessage(
      alices.id,
      { imageMessage: { ...imageMessage, fileSha256: Buffer.alloc(32, 1) } },
      { messageId: tamperedId },
    )
    const tamperedEvent = await byMessage(tamperedId)
    const tampered = await download((tamperedEvent.data as any).media.download_url)
    assert.equal(tampered.status, 502)
    assert.equal(JSON.parse(tampered.body.toString()).code, 'upstream_failed')
  } finally {
    await device.stop()
  }
})

test("a channel's file the network's media host no longer holds: 410 media_expired", async () => {
  const alices = linked.control.channels.list().find((channel) => channel.owner === ALICE)
  assert.ok(alices)
  await linked.control.mediaLifetime({ lifetimeMs: 1 })
  const post = await linked.control.channels.post(ALICE, alices.id, '', {
    data: pngBytes(3000),
    mimetype: 'image/png',
  })
  await linked.control.mediaLifetime({ lifetimeMs: 30 * 86_400_000 })
  const event = await postEvent(linked.instanceId, String(post.server_id))
  const file = await download((event.data as any).media.download_url)
  assert.equal(file.status, 410)
  assert.equal(JSON.parse(file.body.toString()).code, 'media_expired')
})

test('bad input: unknown channel, a channel of someone else, an empty post → clear codes, nothing posted', async () => {
  const alices = linked.control.channels.list().find((channel) => channel.owner === ALICE)
  assert.ok(alices)
  const before = linked.control.channels.list().map((channel) => [channel.id, channel.posts.length])

  const notMine = await linked.api('post_channel', { channel_id: alices.id, text: 'not mine' })
  assert.equal(notMine.status, 403)
  assert.equal(notMine.body.code, 'not_channel_owner')
  const unknown = await linked.api('post_channel', { channel_id: '120363999999999999@newsletter', text: 'x' })
  assert.equal(unknown.status, 404)
  assert.equal(unknown.body.code, 'channel_not_found')
  const empty = await linked.api('post_channel', { channel_id: channelId, text: '   ' })
  assert.equal(empty.status, 400)
  assert.equal(empty.body.code, 'missing_parameter')
  const badId = await linked.api('post_channel', { channel_id: 'not-a-channel', text: 'x' })
  assert.equal(badId.status, 400)
  assert.equal(badId.body.code, 'invalid_parameter')
  const followUnknown = await linked.api('follow_channel', { channel: '120363999999999999@newsletter' })
  assert.equal(followUnknown.body.code, 'channel_not_found')
  const reactUnknown = await linked.api('react_channel', {
    channel_id: channelId,
    post_id: '999',
    emoji: '👍',
  })
  assert.equal(reactUnknown.body.code, 'channel_not_found')

  assert.deepEqual(
    linked.control.channels.list().map((channel) => [channel.id, channel.posts.length]),
    before,
  )
  assert.deepEqual(linked.control.channels.get(channelId).followers, [])
})
