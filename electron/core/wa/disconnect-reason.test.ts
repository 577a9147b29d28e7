import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Boom } from '@hapi/boom'
import { classifyClose } from './disconnect-reason'

/** The Boom Baileys builds for a `<stream:error>`: the first child node is the data. */
function streamError(code: number, child?: { tag: string; attrs: Record<string, string> }): Boom {
  return new Boom(`Stream Errored (${child?.tag ?? 'unknown'})`, { statusCode: code, data: child })
}

test('401 with a device_removed conflict is the phone unlinking the device', () => {
  const verdict = classifyClose(streamError(401, { tag: 'conflict', attrs: { type: 'device_removed' } }))
  assert.deepEqual(verdict, { action: 'logout', code: 401, cause: 'device_removed' })
})

test('401 at login (Connection Failure) is rejected credentials; 403/406/411 also wipe', () => {
  assert.equal(
    classifyClose(new Boom('Connection Failure', { statusCode: 401 })).cause,
    'credentials_rejected',
  )
  for (const code of [403, 406, 411]) {
    assert.equal(
      classifyClose(new Boom('Connection Failure', { statusCode: code })).action,
      'logout',
      String(code),
    )
  }
})

test('402, 405, 409 and 440 stop and keep the credentials, each with its own cause', () => {
  const causes = [402, 405, 409, 440].map((code) =>
    classifyClose(new Boom('Connection Failure', { statusCode: code })),
  )
  assert.deepEqual(
    causes.map((v) => [v.action, v.cause]),
    [
      ['stop', 'temporarily_banned'],
      ['stop', 'client_outdated'],
      ['stop', 'bad_user_agent'],
      ['stop', 'connection_replaced'],
    ],
  )
})

test('515 restarts at once; 408 QR refs ended is QR expiry, other 408s are a lost connection', () => {
  assert.equal(
    classifyClose(new Boom('Stream Errored (restart required)', { statusCode: 515 })).action,
    'restart',
  )
  assert.equal(classifyClose(new Boom('QR refs attempts ended', { statusCode: 408 })).action, 'qr_expired')
  const lost = classifyClose(new Boom('Connection was lost', { statusCode: 408 }))
  assert.deepEqual(lost, { action: 'retry', code: 408, cause: 'connection_lost' })
  const refused = classifyClose(
    new Boom('WebSocket Error (connect ECONNREFUSED 127.0.0.1:9)', { statusCode: 408 }),
  )
  assert.equal(refused.cause, 'network_error')
})

test('428, 500, 503 and unknown errors retry', () => {
  const retried = [428, 500, 503].map((code) => classifyClose(new Boom('x', { statusCode: code })))
  assert.ok(retried.every((v) => v.action === 'retry'))
  assert.equal(classifyClose(new Error('boom')).action, 'retry')
  assert.equal(classifyClose(undefined).action, 'retry')
})
