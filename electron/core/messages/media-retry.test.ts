import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { linkedCoreFixture } from '../testing/linked-core'
import { sha256, TOKEN } from '../testing/messaging-harness'

const ME = '15550330001'
const BOB = '15550330002'
const DEFAULT_LIFETIME_MS = 30 * 86_400_000

const linked = linkedCoreFixture(ME, [{ phone: BOB, name: 'Bob' }])

/** A file Bob sends that the network's media host forgets at once; its download URL once the app has it. */
async function expiredFile(bytes: Buffer): Promise<string> {
  await linked.control.mediaLifetime({ lifetimeMs: 1 })
  const { id } = await linked.control.send(BOB, {
    to: ME,
    media: { data: bytes, mimetype: 'application/pdf', filename: 'old.pdf' },
  })
  await linked.control.mediaLifetime({ lifetimeMs: DEFAULT_LIFETIME_MS })
  const received = await linked.events.waitFor(
    (e) => e.event === 'message.received' && e.data.id === id,
    'the file received',
  )
  return String((received.data.media as Record<string, unknown>).download_url)
}

const download = (url: string) => fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })

test('a file the network forgot downloads through a re-upload by the phone (media retry): the same bytes', async () => {
  const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000)])
  const url = await expiredFile(bytes)
  const answer = await download(url)
  assert.equal(answer.status, 200, await answer.clone().text())
  assert.equal(sha256(Buffer.from(await answer.arrayBuffer())), sha256(bytes))
})

test('a file the network forgot and the phone deleted: 410 media_expired, and a later download says the same', async () => {
  const url = await expiredFile(Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5_000)]))
  assert.ok((await linked.control.forgetMedia(ME)).files >= 1)
  for (let round = 0; round < 2; round++) {
    const answer = await download(url)
    assert.equal(answer.status, 410)
    const body = await answer.json()
    assert.equal(body.code, 'media_expired')
    assert.match(body.message, /expired on the network and the phone could not upload it again/)
  }
})
