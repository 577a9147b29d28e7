import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestCore, TEST_TOKEN, type TestCore } from '../../testing/test-core'

describe('uploads over real HTTP', () => {
  let t: TestCore
  before(async () => {
    t = await startTestCore()
  })
  after(async () => {
    await t.stop()
  })

  test('a posted file answers its address, which serves it without a token', async () => {
    const posted = await t.call(`/uploads?access_token=${TEST_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'image/png' },
      body: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    })
    assert.equal(posted.status, 200, JSON.stringify(posted.body))
    assert.deepEqual(Object.keys(posted.body).sort(), [
      'expires_at',
      'message',
      'size',
      'status',
      'upload_id',
      'url',
    ])
    assert.equal(posted.body.url, `${t.base}/uploads/${posted.body.upload_id}`)
    assert.equal(posted.body.size, 4)
    const fetched = await fetch(posted.body.url)
    assert.equal(fetched.status, 200)
    assert.equal(fetched.headers.get('content-type'), 'image/png')
    assert.deepEqual([...new Uint8Array(await fetched.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47])
  })

  test('an empty body is missing_parameter and an unknown id not_found', async () => {
    const empty = await t.call(`/uploads?access_token=${TEST_TOKEN}`, { method: 'POST', body: '' })
    assert.equal(empty.status, 400)
    assert.equal(empty.body.code, 'missing_parameter')
    const unknown = await t.call('/uploads/AAAAAAAAAAAAAAAAAAAAAA')
    assert.equal(unknown.status, 404)
    assert.equal(unknown.body.code, 'not_found')
  })
})
