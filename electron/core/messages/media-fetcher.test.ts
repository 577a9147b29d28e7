import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { AppError } from '../errors'
import { silentLogger } from '../logger'
import { fetchMedia } from './media-fetcher'
import { sniffMediaType } from './media-kind'

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(100, 7),
])
const PDF = Buffer.from('%PDF-1.4\n% test document\n%%EOF\n')

let server: Server
let base = ''
const hanging = new Set<ServerResponse>()

before(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/'
    const send = (type: string, body: Buffer | string) => {
      res.writeHead(200, { 'content-type': type })
      res.end(body)
    }
    if (path === '/image.png') return send('application/octet-stream', PNG)
    if (path === '/files/report.pdf') return send('application/pdf', PDF)
    if (path === '/notes.txt') return send('text/plain; charset=utf-8', 'hello')
    if (path === '/page') return send('text/html', '<html>login</html>')
    if (path === '/binary') return send('application/octet-stream', Buffer.alloc(50, 1))
    if (path === '/empty') return send('image/png', '')
    if (path === '/big') return send('application/octet-stream', Buffer.alloc(5000, 1))
    if (path === '/big-chunked') {
      res.writeHead(200, { 'content-type': 'image/png' })
      res.write(PNG)
      res.end(Buffer.alloc(5000, 1))
      return
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: '/image.png' })
      return res.end()
    }
    if (path === '/redirect-file') {
      res.writeHead(302, { location: 'file:///etc/passwd' })
      return res.end()
    }
    if (path === '/loop') {
      res.writeHead(302, { location: '/loop' })
      return res.end()
    }
    if (path === '/stall') {
      res.writeHead(200, { 'content-type': 'image/png' })
      res.write(PNG.subarray(0, 10))
      hanging.add(res)
      return
    }
    res.writeHead(404)
    res.end('not found')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

after(async () => {
  for (const res of hanging) res.destroy()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const options = { maxBytes: 1000, timeoutMs: 2000, log: silentLogger() }

function rejectsWith(code: string, pattern?: RegExp) {
  return (error: unknown) =>
    error instanceof AppError &&
    error.code === code &&
    error.message.startsWith('media_url') &&
    (pattern ? pattern.test(error.message) : true)
}

test('an image is typed by its bytes, whatever the server declares', async () => {
  const media = await fetchMedia(`${base}/image.png`, options)
  assert.equal(media.kind, 'image')
  assert.equal(media.mimetype, 'image/png')
  assert.equal(media.fileName, undefined)
  assert.equal(media.sha256, createHash('sha256').update(PNG).digest('hex'))
  assert.ok(media.data.equals(PNG))
})

test('a PDF becomes a document named after the URL; a filename overrides it and makes anything a document', async () => {
  const pdf = await fetchMedia(`${base}/files/report.pdf`, options)
  assert.deepEqual([pdf.kind, pdf.mimetype, pdf.fileName], ['document', 'application/pdf', 'report.pdf'])
  const named = await fetchMedia(`${base}/image.png`, { ...options, fileName: 'scan.png' })
  assert.deepEqual([named.kind, named.mimetype, named.fileName], ['document', 'image/png', 'scan.png'])
  const blob = await fetchMedia(`${base}/binary`, { ...options, fileName: 'data.bin' })
  assert.deepEqual([blob.kind, blob.mimetype], ['document', 'application/octet-stream'])
})

test('declared text formats are documents', async () => {
  const text = await fetchMedia(`${base}/notes.txt`, options)
  assert.deepEqual([text.kind, text.mimetype, text.fileName], ['document', 'text/plain', 'notes.txt'])
})

test('redirects are followed to http(s) only, and not forever', async () => {
  assert.equal((await fetchMedia(`${base}/redirect`, options)).mimetype, 'image/png')
  await assert.rejects(
    fetchMedia(`${base}/redirect-file`, options),
    rejectsWith('media_unavailable', /non-http/),
  )
  await assert.rejects(
    fetchMedia(`${base}/loop`, options),
    rejectsWith('media_unavailable', /redirected more/),
  )
})

test('404, refused connections, web pages, unknown and empty files are media_unavailable', async () => {
  await assert.rejects(fetchMedia(`${base}/missing`, options), rejectsWith('media_unavailable', /HTTP 404/))
  await assert.rejects(fetchMedia(`${base}/page`, options), rejectsWith('media_unavailable', /web page/))
  await assert.rejects(
    fetchMedia(`${base}/binary`, options),
    rejectsWith('media_unavailable', /not a supported/),
  )
  await assert.rejects(fetchMedia(`${base}/empty`, options), rejectsWith('media_unavailable', /empty/))
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  await assert.rejects(
    fetchMedia(`http://127.0.0.1:${port}/x.png`, options),
    rejectsWith('media_unavailable', /refused/),
  )
})

test('files over the limit are payload_too_large, by declared length or by counting', async () => {
  await assert.rejects(fetchMedia(`${base}/big`, options), rejectsWith('payload_too_large'))
  await assert.rejects(fetchMedia(`${base}/big-chunked`, options), rejectsWith('payload_too_large'))
})

test('a server that stalls runs into the fetch timeout', async () => {
  await assert.rejects(
    fetchMedia(`${base}/stall`, { ...options, timeoutMs: 200 }),
    rejectsWith('media_unavailable', /within|stopped answering/),
  )
})

test('non-http(s) URLs are refused before any fetch', async () => {
  await assert.rejects(fetchMedia('file:///etc/passwd', options), rejectsWith('media_unavailable', /http/))
  await assert.rejects(fetchMedia('not a url', options), AppError)
})

test('magic bytes of the common formats', () => {
  const cases: [number[] | string, string | undefined][] = [
    [[0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    ['GIF89a', 'image/gif'],
    ['RIFF\0\0\0\0WEBPVP8 ', 'image/webp'],
    ['RIFF\0\0\0\0WAVEfmt ', 'audio/wav'],
    ['\0\0\0\x18ftypisom', 'video/mp4'],
    ['\0\0\0\x18ftypM4A ', 'audio/mp4'],
    ['\0\0\0\x18ftypqt  ', 'video/quicktime'],
    ['OggS\0\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0OpusHead', 'audio/ogg; codecs=opus'],
    ['ID3\x04', 'audio/mpeg'],
    [[0xff, 0xfb, 0x90], 'audio/mpeg'],
    [[0xff, 0xf1, 0x50], 'audio/aac'],
    ['%PDF-1.7', 'application/pdf'],
    ['PK\x03\x04', 'application/zip'],
    ['hello', undefined],
  ]
  for (const [bytes, mimetype] of cases) {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes)
    assert.equal(sniffMediaType(data)?.mimetype, mimetype, String(bytes))
  }
})
