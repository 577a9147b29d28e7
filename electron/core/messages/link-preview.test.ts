import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import sharp from 'sharp'
import type { Core } from '../index'
import { call, startCore, tempDataDir } from '../testing/instance-harness'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { createLinkPreviewer, firstLink } from './link-preview'
import { isPublicAddress } from './public-network'
import { linkedInstance, startFileServer } from '../testing/messaging-harness'

const ME = '15550410001'
const ALICE = '15550410002'

const page = (head: string) => ({
  type: 'text/html; charset=utf-8',
  body: Buffer.from(`<!doctype html><html><head>${head}</head><body><p>Hello</p></body></html>`),
})

let files: Awaited<ReturnType<typeof startFileServer>>

before(async () => {
  const picture = await sharp({ create: { width: 800, height: 400, channels: 3, background: '#2060c0' } })
    .png()
    .toBuffer()
  files = await startFileServer({
    '/article': page(
      '<title>Plain title</title><meta property="og:title" content="Spring sale"><meta property="og:description" content="Everything at half price"><meta property="og:image" content="/banner.png">',
    ),
    '/no-title': page('<meta name="robots" content="noindex">'),
    '/banner.png': { type: 'image/png', body: picture },
    '/file.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.4\n%…') },
  })
})

after(async () => {
  await files.close()
})

describe('the link of a text', () => {
  test('is its first http(s) link, without the punctuation that ends the sentence', () => {
    assert.equal(firstLink('see https://example.com/a?b=1.'), 'https://example.com/a?b=1')
    assert.equal(firstLink('(at http://example.com/x), then https://two.example'), 'http://example.com/x')
    assert.equal(firstLink('no link here, not even example.com'), undefined)
    assert.equal(firstLink('ftp://example.com/file'), undefined)
  })

  test('is fetched from public addresses only unless told otherwise', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.10', '172.16.5.4', '169.254.169.254', '::1']) {
      assert.equal(isPublicAddress(address), false, address)
    }
    for (const address of ['::ffff:127.0.0.1', 'fe80::1', 'fc00::1', '0.0.0.0', '100.64.0.1']) {
      assert.equal(isPublicAddress(address), false, address)
    }
    assert.equal(isPublicAddress('93.184.215.14'), true)
    assert.equal(isPublicAddress('2606:4700::6810:84e5'), true)
    assert.equal(isPublicAddress('not an address'), false)
  })
})

describe('the previewer', () => {
  const log = pino({ level: 'silent' })

  test('reads the page title, description and picture, made a small JPEG', async () => {
    const previews = createLinkPreviewer({ timeoutMs: 5000, publicOnly: false, log })
    const link = files.url('/article')
    const preview = await previews.preview(`Read ${link}!`)
    assert.ok(preview)
    assert.equal(preview.url, link)
    assert.equal(preview.matchedText, link)
    assert.equal(preview.title, 'Spring sale')
    assert.equal(preview.description, 'Everything at half price')
    assert.ok(preview.thumbnail)
    const thumbnail = await sharp(preview.thumbnail).metadata()
    assert.equal(thumbnail.format, 'jpeg')
    assert.deepEqual([thumbnail.width, thumbnail.height], [192, 96])
  })

  test('makes none for a loopback page when public addresses only, and never asks it', async () => {
    const previews = createLinkPreviewer({ timeoutMs: 5000, publicOnly: true, log })
    const before = files.requests()
    assert.equal(await previews.preview(`Read ${files.url('/article')}`), undefined)
    assert.equal(await previews.preview('Read http://localhost:1/article'), undefined)
    assert.equal(files.requests(), before)
  })

  test('makes none for a page without a title, a file, a missing page or no link', async () => {
    const previews = createLinkPreviewer({ timeoutMs: 5000, publicOnly: false, log })
    for (const path of ['/no-title', '/file.pdf', '/missing']) {
      assert.equal(await previews.preview(files.url(path)), undefined, path)
    }
    assert.equal(await previews.preview('just words'), undefined)
  })
})

describe('send_message with link_preview', () => {
  let core: Core
  let dataDir: string
  let instanceId: string

  before(async () => {
    dataDir = tempDataDir()
    core = await startCore({
      dataDir,
      sandbox: true,
      // The test's pages are on the loopback address.
      linkPreviewPrivate: true,
      limits: { sendIntervalMs: 0, sendJitterMs: 0 },
    })
    await core.sandbox!.control.addAccount({ phone: ALICE, name: 'Alice' })
    instanceId = await linkedInstance(core, ME)
  })

  after(async () => {
    await core.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const send = (params: Record<string, unknown>) =>
    call(core.apiBase, 'send_message', { instance_id: instanceId, number: ALICE, ...params })

  test('arrives in the contact’s chat with the page’s title, description and picture', async () => {
    const link = files.url('/article')
    const sent = await send({ type: 'text', message: `Our sale: ${link}`, link_preview: true })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    assert.deepEqual(sent.body.message.message, {
      extendedTextMessage: {
        text: `Our sale: ${link}`,
        matchedText: link,
        title: 'Spring sale',
        description: 'Everything at half price',
      },
    })
    const entry = await inboxEntry(core.sandbox!, ALICE, sent.body.message.key.id)
    assert.equal(entry.text, `Our sale: ${link}`)
    assert.equal(entry.linkPreview?.url, link)
    assert.equal(entry.linkPreview?.title, 'Spring sale')
    assert.equal(entry.linkPreview?.description, 'Everything at half price')
    const thumbnail = await sharp(Buffer.from(entry.linkPreview?.thumbnail ?? '', 'base64')).metadata()
    assert.equal(thumbnail.format, 'jpeg')
  })

  test('is off by default: the seed’s text send is unchanged and fetches nothing', async () => {
    const before = files.requests()
    const sent = await send({ type: 'text', message: `Plain ${files.url('/article')}` })
    assert.equal(sent.status, 200)
    assert.deepEqual(sent.body.message.message, {
      extendedTextMessage: { text: `Plain ${files.url('/article')}` },
    })
    const entry = await inboxEntry(core.sandbox!, ALICE, sent.body.message.key.id)
    assert.equal(entry.linkPreview, null)
    assert.equal(files.requests(), before)
  })

  test('a page that cannot be read sends the text without a preview', async () => {
    const sent = await send({ type: 'text', message: `Gone: ${files.url('/missing')}`, link_preview: true })
    assert.equal(sent.status, 200)
    const entry = await inboxEntry(core.sandbox!, ALICE, sent.body.message.key.id)
    assert.equal(entry.text, `Gone: ${files.url('/missing')}`)
    assert.equal(entry.linkPreview, null)
  })

  test('link_preview on another type is refused naming it, and nothing is sent', async () => {
    const inbox = core.sandbox!.control.inbox(ALICE).length
    const refused = await send({ type: 'location', latitude: 1, longitude: 2, link_preview: true })
    assert.equal(refused.status, 400)
    assert.equal(refused.body.code, 'invalid_parameter')
    assert.match(refused.body.message, /link_preview/)
    const notBoolean = await send({ type: 'text', message: 'x', link_preview: 'maybe' })
    assert.equal(notBoolean.status, 400)
    assert.match(notBoolean.body.message, /link_preview/)
    assert.equal(core.sandbox!.control.inbox(ALICE).length, inbox)
  })
})
