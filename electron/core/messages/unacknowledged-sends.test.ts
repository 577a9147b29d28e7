import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { linkedCoreFixture, type LinkedCore } from '../testing/linked-core'
import { eventually } from '../testing/messaging-harness'

// Each send waits 3 s for the network's ack, then answers 504; the keepalive (1 s) declares a silent link
// lost after about 6 s. The link is kept down far longer than both, so nothing can reach the contact before.
const ACK_WAIT_MS = 3000
const DOWN_MS = 15_000
const LONG = 60_000

/** The copies of a text in a phone's inbox. */
function copies(linked: LinkedCore, phone: string, text: string) {
  return linked.control.inbox(phone).filter((entry) => entry.text === text)
}

describe('a send into a silent link', () => {
  const ME = '15550410001'
  const ALICE = '15550410002'
  const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }], {
    timings: { operationWaitMs: ACK_WAIT_MS },
  })
  const send = (message: string, extra: Record<string, unknown> = {}) =>
    linked.api('send_message', { number: ALICE, type: 'text', message, ...extra })
  // The contact's number is looked up (and remembered) while the link is sound.
  before(async () => {
    const hello = await send('hello')
    assert.equal(hello.status, 200, JSON.stringify(hello.body))
  })

  test('504, then a retry under the same key never answers success for a message the contact does not have; once the link is back the contact has it once', async () => {
    const text = 'into the silent link'
    const key = { idempotency_key: 'silent-retry-1' }
    await linked.control.drop(ME, 'silent', DOWN_MS)
    const first = await send(text, key)
    assert.equal(first.status, 504, JSON.stringify(first.body))
    assert.equal(first.body.code, 'upstream_timeout')
    const messageId = first.body.details.message_id
    const retry = await send(text, key)
    const inboxAtRetry = copies(linked, ALICE, text)
    if (retry.status === 200) {
      assert.deepEqual(
        inboxAtRetry.map((entry) => entry.id),
        [messageId],
        'a 200 answer names a message the contact has',
      )
    } else {
      assert.ok(['upstream_timeout', 'not_connected'].includes(retry.body.code), JSON.stringify(retry.body))
    }
    // The link comes back: the unacknowledged message goes out again under its id, and arrives once.
    const arrived = await eventually(
      () => copies(linked, ALICE, text),
      (found) => found.length > 0,
      'the message at the contact',
      LONG,
    )
    assert.deepEqual(
      arrived.map((entry) => entry.id),
      [messageId],
    )
    await linked.events.waitFor(
      (e) => e.event === 'message.status' && e.data.id === messageId && e.data.status === 'sent',
      'message.status sent',
      LONG,
    )
    const later = await send(text, key)
    assert.equal(later.status, 200, JSON.stringify(later.body))
    assert.equal(later.body.message.key.id, messageId)
    assert.equal(copies(linked, ALICE, text).length, 1)
  })

  test('a send answered 504 without a key is sent again after the reconnect and arrives once', async () => {
    const text = 'unkeyed into the silent link'
    await linked.control.drop(ME, 'silent', DOWN_MS)
    const first = await send(text)
    assert.equal(first.status, 504, JSON.stringify(first.body))
    const messageId = first.body.details.message_id
    assert.equal(copies(linked, ALICE, text).length, 0)
    await linked.events.waitFor(
      (e) => e.event === 'message.status' && e.data.id === messageId && e.data.status === 'sent',
      'message.status sent',
      LONG,
    )
    assert.deepEqual(
      copies(linked, ALICE, text).map((entry) => entry.id),
      [messageId],
    )
  })
  test('a send answered 504 without a key, then the app restarted before the link came back: sent again once it connects, and arrives once', async () => {
    const text = 'unkeyed, then a restart'
    await linked.control.drop(ME, 'silent', DOWN_MS)
    const first = await send(text)
    assert.equal(first.status, 504, JSON.stringify(first.body))
    const messageId = first.body.details.message_id
    await linked.restart()
    assert.equal(copies(linked, ALICE, text).length, 0, 'nothing reached the contact before the restart')
    await linked.events.waitFor(
      (e) => e.event === 'message.status' && e.data.id === messageId && e.data.status === 'sent',
      'message.status sent after the restart',
      LONG,
    )
    assert.deepEqual(
      copies(linked, ALICE, text).map((entry) => entry.id),
      [messageId],
    )
  })
})

describe('a send the network never acknowledges within the re-send window', () => {
  const ME = '15550410011'
  const ALICE = '15550410012'
  const WINDOW_MS = 5000
  const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }], {
    timings: { operationWaitMs: ACK_WAIT_MS, resendWindowMs: WINDOW_MS },
  })
  const send = (message: string, extra: Record<string, unknown> = {}) =>
    linked.api('send_message', { number: ALICE, type: 'text', message, ...extra })
  // The contact's number is looked up (and remembered) while the link is sound.
  before(async () => {
    const hello = await send('hello')
    assert.equal(hello.status, 200, JSON.stringify(hello.body))
  })

  test('is marked failed (message.status, error_code unacknowledged); a retry under its key then sends that id, once', async () => {
    const text = 'past the window'
    const key = { idempotency_key: 'window-1' }
    await linked.control.drop(ME, 'silent', DOWN_MS)
    const first = await send(text, key)
    assert.equal(first.status, 504, JSON.stringify(first.body))
    const messageId = first.body.details.message_id
    const failed = await linked.events.waitFor(
      (e) => e.event === 'message.status' && e.data.id === messageId,
      'message.status',
      LONG,
    )
    assert.deepEqual(
      { status: failed.data.status, error_code: failed.data.error_code },
      { status: 'failed', error_code: 'unacknowledged' },
    )
    assert.equal(copies(linked, ALICE, text).length, 0)
    // Once the link is back, a retry under the key sends the recorded id: success only with the contact
    // holding that one message.
    const deadline = Date.now() + LONG
    for (;;) {
      const retry = await send(text, key)
      if (retry.status === 200) {
        assert.equal(retry.body.message.key.id, messageId)
        break
      }
      assert.ok(['upstream_timeout', 'not_connected'].includes(retry.body.code), JSON.stringify(retry.body))
      assert.ok(Date.now() < deadline, 'the retry succeeds once the link is back')
    }
    assert.deepEqual(
      copies(linked, ALICE, text).map((entry) => entry.id),
      [messageId],
    )
  })

  test('one kept by a process that stopped before its window closed is marked failed at the next start, never sent', async () => {
    const text = 'past the window while the app was down'
    await linked.control.drop(ME, 'silent', DOWN_MS)
    const first = await send(text)
    assert.equal(first.status, 504, JSON.stringify(first.body))
    const messageId = first.body.details.message_id
    await linked.core.close()
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
    await linked.restart({ closed: true })
    const failed = await linked.events.waitFor(
      (e) => e.event === 'message.status' && e.data.id === messageId,
      'message.status after the restart',
      LONG,
    )
    assert.deepEqual(
      { status: failed.data.status, error_code: failed.data.error_code },
      { status: 'failed', error_code: 'unacknowledged' },
    )
    // The link is sound again: a plain send arrives, and the failed one was never sent.
    const after = await send('after the restart')
    assert.equal(after.status, 200, JSON.stringify(after.body))
    assert.equal(copies(linked, ALICE, text).length, 0)
  })
})
