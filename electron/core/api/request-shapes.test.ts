import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, pngBytes, sha256, startFileServer, TOKEN } from '../testing/messaging-harness'

/**
 * Request shapes that common client libraries send, byte for byte: PHP's HTTP clients (Guzzle/Laravel),
 * PHP curl with an array body, Python requests with `files=`, and a browser's HTML form.
 */

const ME = '15550600001'
const CAROL = '15550600002'
const MEDIA_LIMIT = 256 * 1024

const PNG = pngBytes(6000)
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3000, 0x20), Buffer.from('\n%%EOF\n')])

const linked = linkedCoreFixture(ME, [{ phone: CAROL, name: 'Carol' }], {
  limits: { mediaBytes: MEDIA_LIMIT },
})
let files: Awaited<ReturnType<typeof startFileServer>>

before(async () => {
  files = await startFileServer({ '/photo.png': { type: 'image/png', body: PNG } })
})

after(async () => {
  await files.close()
})

const inbox = () => linked.control.inbox(CAROL)

/** Sends exactly these headers (names as given) and body bytes; waits for 100 Continue when asked to. */
function rawPost(
  path: string,
  headers: Record<string, string>,
  body: Buffer | string,
): Promise<{ status: number; body: any }> {
  const bytes = Buffer.from(body)
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${linked.core.apiBase}${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(bytes.length) },
    })
    req.on('response', (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    if (headers.Expect === '100-continue') req.on('continue', () => req.end(bytes))
    else req.end(bytes)
  })
}

type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer }

/** A multipart/form-data body as these clients write it: CRLF lines, the file's bytes as they are. */
function multipart(boundary: string, parts: Part[]): Buffer {
  const chunks: Buffer[] = []
  for (const part of parts) {
    const head = [`--${boundary}`]
    if ('value' in part) {
      head.push(`Content-Disposition: form-data; name="${part.name}"`)
      chunks.push(Buffer.from(`${head.join('\r\n')}\r\n\r\n${part.value}\r\n`))
    } else {
      head.push(`Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"`)
      if (part.type) head.push(`Content-Type: ${part.type}`)
      chunks.push(Buffer.from(`${head.join('\r\n')}\r\n\r\n`), part.data, Buffer.from('\r\n'))
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

const PHP_CURL_BOUNDARY = '------------------------d74496d66958873e'
const PYTHON_BOUNDARY = '0b6e3b6e1a5a4c4f9d4c2c3b1e5f7a9d'
const CHROMIUM_BOUNDARY = '----WebKitFormBoundary7MA4YWxkTrZu0gW'

/** PHP curl with CURLOPT_POSTFIELDS set to an array (libcurl adds Expect for bodies over 1 KiB). */
function phpCurl(path: string, parts: Part[]) {
  const body = multipart(PHP_CURL_BOUNDARY, parts)
  return rawPost(
    path,
    {
      Accept: '*/*',
      'Content-Type': `multipart/form-data; boundary=${PHP_CURL_BOUNDARY}`,
      ...(body.length > 1024 ? { Expect: '100-continue' } : {}),
    },
    body,
  )
}

/** Python requests.post(url, data=..., files=...): fields first, then files without a Content-Type. */
function pythonRequests(path: string, parts: Part[]) {
  return rawPost(
    path,
    {
      'User-Agent': 'python-requests/2.32.3',
      'Accept-Encoding': 'gzip, deflate',
      Accept: '*/*',
      Connection: 'keep-alive',
      'Content-Type': `multipart/form-data; boundary=${PYTHON_BOUNDARY}`,
    },
    multipart(PYTHON_BOUNDARY, parts),
  )
}

/** A Chromium HTML form with enctype="multipart/form-data". */
function htmlForm(path: string, parts: Part[]) {
  return rawPost(
    path,
    {
      'Content-Type': `multipart/form-data; boundary=${CHROMIUM_BOUNDARY}`,
      Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    },
    multipart(CHROMIUM_BOUNDARY, parts),
  )
}

/** Laravel's Http::post() / Guzzle with `json => []`: the query string carries the parameters. */
function guzzleJson(path: string, body: string) {
  return rawPost(path, { 'User-Agent': 'GuzzleHttp/7', 'Content-Type': 'application/json' }, body)
}

function assertError(answer: { status: number; body: any }, status: number, code: string, message?: RegExp) {
  assert.equal(answer.status, status, JSON.stringify(answer.body))
  assert.equal(answer.body.status, 'error')
  assert.equal(answer.body.code, code)
  if (message) assert.match(answer.body.message, message)
}

describe('JSON bodies', () => {
  test('a JSON body of [], null or {} means no body parameters: the query string is used', async () => {
    for (const body of ['[]', 'null', '{}', ' [ ] ']) {
      const created = await guzzleJson(`/create_instance?access_token=${TOKEN}`, body)
      assert.equal(created.status, 200, `${body}: ${JSON.stringify(created.body)}`)
      const read = await guzzleJson(
        `/instance?access_token=${TOKEN}&instance_id=${created.body.instance_id}`,
        body,
      )
      assert.equal(read.status, 200, `${body}: ${JSON.stringify(read.body)}`)
      assert.equal(read.body.instance.instance_id, created.body.instance_id)
    }
  })

  test('a JSON array with items or a scalar stays 400 invalid_body', async () => {
    for (const body of ['[1]', '[{"instance_id":"x"}]', '"text"', '5', 'true']) {
      const answer = await guzzleJson(`/create_instance?access_token=${TOKEN}`, body)
      assertError(answer, 400, 'invalid_body', /object of named parameters/)
    }
  })
})

describe('multipart/form-data bodies', () => {
  test('fields work as form fields for any operation, from PHP curl, Python requests and an HTML form', async () => {
    const before = (await guzzleJson(`/instances?access_token=${TOKEN}`, '{}')).body.instances.length
    const created = await phpCurl('/create_instance', [{ name: 'access_token', value: TOKEN }])
    assert.equal(created.status, 200, JSON.stringify(created.body))
    const id = created.body.instance_id
    const listed = (await guzzleJson(`/instances?access_token=${TOKEN}`, '{}')).body.instances
    assert.equal(listed.length, before + 1)
    assert.ok(listed.some((instance: { instance_id: string }) => instance.instance_id === id))

    const fields = [
      { name: 'access_token', value: TOKEN },
      { name: 'instance_id', value: id },
    ]
    const viaPython = await pythonRequests('/instance', fields)
    assert.equal(viaPython.status, 200, JSON.stringify(viaPython.body))
    assert.equal(viaPython.body.instance.instance_id, id)
    // A browser sends a file input left empty as an empty part; it is no parameter at all.
    const viaForm = await htmlForm('/instance', [
      ...fields,
      { name: 'file', filename: '', type: 'application/octet-stream', data: Buffer.alloc(0) },
    ])
    assert.equal(viaForm.status, 200, JSON.stringify(viaForm.body))
    // The body wins over the query string, as for the other encodings.
    const overridden = await pythonRequests(`/instance?instance_id=nope&access_token=${TOKEN}`, fields)
    assert.equal(overridden.body.instance.instance_id, id)
  })

  test('multipart mistakes name the parameter: missing, repeated, or a file where text belongs', async () => {
    assertError(
      await pythonRequests('/instance', [{ name: 'access_token', value: TOKEN }]),
      400,
      'missing_parameter',
      /instance_id/,
    )
    assertError(
      await pythonRequests('/instance', [
        { name: 'access_token', value: TOKEN },
        { name: 'instance_id', value: linked.instanceId },
        { name: 'instance_id', value: linked.instanceId },
      ]),
      400,
      'invalid_parameter',
      /instance_id was given more than once/,
    )
    assertError(
      await pythonRequests('/instance', [
        { name: 'access_token', value: TOKEN },
        { name: 'instance_id', filename: 'id.txt', data: Buffer.from(linked.instanceId) },
      ]),
      400,
      'invalid_parameter',
      /instance_id must be a plain form field/,
    )
  })

  test('a malformed multipart body is a 400 invalid_body, never a 500', async () => {
    const good = multipart(PYTHON_BOUNDARY, [{ name: 'access_token', value: TOKEN }])
    const cases: Array<[string, Buffer]> = [
      ['multipart/form-data', good],
      [`multipart/form-data; boundary=${PYTHON_BOUNDARY}`, good.subarray(0, good.length - 10)],
      [`multipart/form-data; boundary=${PYTHON_BOUNDARY}`, Buffer.from('not a multipart body at all')],
    ]
    for (const [type, body] of cases) {
      assertError(await rawPost('/create_instance', { 'Content-Type': type }, body), 400, 'invalid_body')
    }
  })
})

describe('sending a file part as the media', () => {
  const sendFields = (extra: Part[]): Part[] => [
    { name: 'access_token', value: TOKEN },
    { name: 'instance_id', value: linked.instanceId },
    { name: 'number', value: CAROL },
    { name: 'type', value: 'media' },
    ...extra,
  ]

  async function arrived(messageId: string) {
    const [entry] = await eventually(
      () => inbox().filter((e) => e.id === messageId),
      (found) => found.length === 1,
      'file in the inbox',
    )
    return entry!
  }

  test('Python requests files=: the image arrives byte-identical with its caption', async () => {
    const answer = await pythonRequests(
      '/send_message',
      sendFields([
        { name: 'message', value: 'Uploaded photo' },
        { name: 'file', filename: 'photo.png', data: PNG },
      ]),
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    assert.equal(answer.body.message.message.imageMessage.mimetype, 'image/png')
    const entry = await arrived(answer.body.message.key.id)
    assert.equal(entry.type, 'image')
    assert.equal(entry.size, PNG.length)
    assert.equal(entry.sha256, sha256(PNG))
    assert.equal(entry.caption, 'Uploaded photo')
  })

  test('PHP curl with a CURLFile: a PDF arrives as a document named after the part', async () => {
    const answer = await phpCurl(
      '/send',
      sendFields([{ name: 'file', filename: 'invoice-42.pdf', type: 'application/pdf', data: PDF }]),
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const entry = await arrived(answer.body.message.key.id)
    assert.deepEqual(
      [entry.type, entry.filename, entry.mimetype, entry.size, entry.sha256],
      ['document', 'invoice-42.pdf', 'application/pdf', PDF.length, sha256(PDF)],
    )
  })

  test('an HTML form: filename makes the uploaded image a document with that name', async () => {
    const answer = await htmlForm(
      '/send_message',
      sendFields([
        { name: 'filename', value: 'scan.png' },
        { name: 'file', filename: 'IMG_0001.PNG', type: 'image/png', data: PNG },
      ]),
    )
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    const entry = await arrived(answer.body.message.key.id)
    assert.deepEqual([entry.type, entry.filename, entry.sha256], ['document', 'scan.png', sha256(PNG)])
  })

  test('an upload keeps the limits and typing of media_url, and sends nothing when refused', async () => {
    const before = inbox().length
    assertError(
      await pythonRequests(
        '/send_message',
        sendFields([{ name: 'file', filename: 'big.png', data: pngBytes(MEDIA_LIMIT + 1) }]),
      ),
      413,
      'payload_too_large',
      /media limit/,
    )
    assertError(
      await pythonRequests(
        '/send_message',
        sendFields([{ name: 'file', filename: 'noise.bin', data: Buffer.alloc(5000, 7) }]),
      ),
      422,
      'media_unavailable',
      /^file is not a supported file/,
    )
    assertError(
      await pythonRequests(
        '/send_message',
        sendFields([
          { name: 'media_url', value: files.url('/photo.png') },
          { name: 'file', filename: 'photo.png', data: PNG },
        ]),
      ),
      400,
      'invalid_parameter',
      /media_url or a file part, not both/,
    )
    assertError(
      await pythonRequests('/send_message', [
        ...sendFields([]).filter((part) => part.name !== 'type'),
        { name: 'type', value: 'text' },
        { name: 'message', value: 'hi' },
        { name: 'file', filename: 'photo.png', data: PNG },
      ]),
      400,
      'invalid_parameter',
      /only for type media/,
    )
    assertError(
      await pythonRequests(
        '/send_message',
        sendFields([
          { name: 'file', filename: 'a.png', data: PNG },
          { name: 'file', filename: 'b.png', data: PNG },
        ]),
      ),
      413,
      'payload_too_large',
      /at most 1 file/,
    )
    assertError(
      await guzzleJson(
        `/send_message?access_token=${TOKEN}`,
        JSON.stringify({ instance_id: linked.instanceId, number: CAROL, type: 'media', file: 'photo.png' }),
      ),
      400,
      'invalid_parameter',
      /file must be a file part of a multipart\/form-data body/,
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(inbox().length, before, 'nothing was sent')
  })

  test('the OpenAPI document describes the multipart body, with the file part only there', async () => {
    const document = (await (await fetch(`${linked.core.apiBase}/openapi.json`)).json()) as any
    const send = document.paths['/send_message']
    const content = send.post.requestBody.content
    assert.deepEqual(
      {
        type: content['multipart/form-data'].schema.properties.file.type,
        format: content['multipart/form-data'].schema.properties.file.format,
      },
      { type: 'string', format: 'binary' },
    )
    assert.equal(content['application/json'].schema.properties.file, undefined)
    assert.equal(content['application/x-www-form-urlencoded'].schema.properties.file, undefined)
    assert.equal(
      send.get.parameters.some((parameter: { name: string }) => parameter.name === 'file'),
      false,
    )
    assert.ok(
      document.paths['/instance'].post.requestBody.content['multipart/form-data'].schema.properties
        .instance_id,
    )
  })
})
