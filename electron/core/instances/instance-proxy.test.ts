import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import sharp from 'sharp'
import { linkedCoreFixture } from '../testing/linked-core'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { type LocalProxy, startHttpProxy, startSocksProxy } from '../testing/local-proxies'
import { TOKEN, waitForStatus } from '../testing/instance-harness'

const ME = '15550640001'
const ALICE = '15550640002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])
let http: LocalProxy
let socks: LocalProxy

before(async () => {
  http = await startHttpProxy('agent:s3cret')
  socks = await startSocksProxy({ user: 'agent', password: 's3cret' })
})

after(async () => {
  await http.close()
  await socks.close()
})

const chatPort = () => new URL(linked.core.sandbox!.endpoint.wsUrl).port

/** Sets the proxy and waits until the instance is connected again (through it). */
async function routeThrough(proxy: string) {
  const asked = Date.now()
  const answer = await linked.api('update_instance', { proxy })
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  await waitForStatus(
    linked.core,
    linked.instanceId,
    (s) => s.state === 'connected' && s.since >= asked,
    'connected again',
  )
  return answer.body.instance
}

/** Sends an image to Alice and checks it arrived whole. */
async function sendPicture(caption: string) {
  const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c03030' } })
    .png()
    .toBuffer()
  const sent = await linked.api('send_message', {
    number: ALICE,
    type: 'media',
    media_base64: image.toString('base64'),
    message: caption,
  })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  const received = await inboxEntry(linked.core.sandbox!, ALICE, sent.body.message.key.id)
  assert.equal(received.caption, caption)
  assert.equal(received.type, 'image')
}

for (const [kind, proxy] of [
  ['an HTTP CONNECT', () => `http://agent:s3cret@127.0.0.1:${http.port}`],
  ['a SOCKS5', () => `socks5://agent:s3cret@127.0.0.1:${socks.port}`],
] as const) {
  test(`through ${kind} proxy with credentials, the connection and the media go through it`, async () => {
    const local = kind.includes('HTTP') ? http : socks
    const seen = local.tunnels.length
    const instance = await routeThrough(proxy())
    assert.equal(instance.proxy, proxy().replace(':s3cret@', ':***@'), 'the password is never shown')
    const tunnels = () => local.tunnels.slice(seen)
    assert.ok(
      tunnels().some((target) => target.endsWith(`:${chatPort()}`)),
      JSON.stringify(tunnels()),
    )
    await sendPicture(`through ${kind}`)
    const mediaTunnels = () => tunnels().filter((target) => !target.endsWith(`:${chatPort()}`)).length
    const uploads = mediaTunnels()
    assert.ok(uploads > 0, `the media upload went through the proxy too: ${JSON.stringify(tunnels())}`)
    // A picture Alice sends, downloaded through the API: the download goes through the proxy as well.
    const image = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#30c030' } })
      .png()
      .toBuffer()
    const { id } = await linked.control.send(ALICE, { to: ME, media: { data: image, mimetype: 'image/png' } })
    const received = await linked.events.waitFor(
      (event) => event.event === 'message.received' && (event.data as any).id === id,
      'the picture arrives',
    )
    const download = await fetch((received.data as any).media.download_url, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    assert.equal(download.status, 200)
    assert.ok((await download.arrayBuffer()).byteLength > 0)
    assert.ok(mediaTunnels() > uploads, `the download went through the proxy: ${JSON.stringify(tunnels())}`)
  })
}

test('the proxy is kept across a restart, and an empty proxy goes direct again', async () => {
  await linked.restart()
  await waitForStatus(linked.core, linked.instanceId, (s) => s.state === 'connected', 'restored')
  const { body } = await linked.api('instance')
  assert.equal(body.instance.proxy, `socks5://agent:***@127.0.0.1:${socks.port}`)
  const seen = socks.tunnels.length
  const instance = await routeThrough('none')
  assert.equal(instance.proxy, null)
  await sendPicture('direct')
  assert.equal(socks.tunnels.length, seen, 'nothing went through the proxy any more')
})

test('a malformed or unreachable proxy is refused and nothing changes', async () => {
  const closed = await startHttpProxy()
  const port = closed.port
  await closed.close()
  const cases: Array<[string, number, string]> = [
    ['ftp://127.0.0.1:21', 400, 'invalid_parameter'],
    ['socks5://127.0.0.1', 400, 'invalid_parameter'],
    ['http://127.0.0.1:8080/path', 400, 'invalid_parameter'],
    ['not a url', 400, 'invalid_parameter'],
    [`http://127.0.0.1:${port}`, 422, 'proxy_unreachable'],
  ]
  for (const [proxy, status, code] of cases) {
    const answer = await linked.api('update_instance', { proxy, name: 'Changed' })
    assert.equal(answer.status, status, `${proxy}: ${JSON.stringify(answer.body)}`)
    assert.equal(answer.body.code, code, proxy)
    assert.match(answer.body.message, /proxy/)
  }
  const { body } = await linked.api('instance')
  assert.equal(body.instance.proxy, null)
  assert.notEqual(body.instance.name, 'Changed', 'nothing of a refused change is kept')
})

test('a proxy that goes away leaves the instance disconnected with cause proxy_unreachable, retrying', async () => {
  const doomed = await startHttpProxy()
  await routeThrough(`http://127.0.0.1:${doomed.port}`)
  await doomed.close()
  const lost = await waitForStatus(
    linked.core,
    linked.instanceId,
    (s) => s.state === 'disconnected' && s.cause === 'proxy_unreachable',
    'proxy_unreachable',
    20_000,
  )
  assert.ok(lost.nextRetryAt, 'it retries by itself')
  await linked.api('update_instance', { proxy: 'none' })
})
