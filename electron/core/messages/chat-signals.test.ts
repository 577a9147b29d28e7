import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { sineAudio } from '../testing/sine-audio'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually } from '../testing/messaging-harness'

const ME = '15550430001'
const ALICE = '15550430002'

const linked = linkedCoreFixture(ME, [{ phone: ALICE, name: 'Alice' }])

const control = () => linked.control
const api = linked.api

async function fromAlice(text: string): Promise<string> {
  const { id } = await control().send(ALICE, { to: ME, text })
  await linked.events.waitFor((event) => event.event === 'message.received' && event.data.id === id, text)
  return id
}

describe('read receipts', () => {
  test('messages named by id, then a whole chat, are read on the contact’s side', async () => {
    const first = await fromAlice('Are you there?')
    const marked = await api('mark_read', { message_ids: [first] })
    assert.equal(marked.status, 200, JSON.stringify(marked.body))
    assert.equal(marked.body.read, 1)
    await eventually(
      () => control().reads(ALICE),
      (ids) => ids.includes(first),
      'the read receipt',
    )

    const second = await fromAlice('Hello?')
    const third = await fromAlice('Anyone?')
    assert.ok(!control().reads(ALICE).includes(second), 'not read before it is marked')
    const chat = await api('mark_read', { number: ALICE })
    assert.equal(chat.status, 200, JSON.stringify(chat.body))
    assert.ok(chat.body.read >= 2)
    await eventually(
      () => control().reads(ALICE),
      (ids) => ids.includes(second) && ids.includes(third),
      'the chat’s read receipts',
    )
  })

  test('unknown or own messages, and neither or both targets, are refused; nothing is read', async () => {
    const unread = await fromAlice('Still unread')
    const sent = await api('send_message', { number: ALICE, type: 'text', message: 'mine' })
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ message_ids: ['NO-SUCH-ID'] }, 404, 'message_not_found'],
      [{ message_ids: [sent.body.message.key.id] }, 422, 'action_not_allowed'],
      [{}, 400, 'invalid_parameter'],
      [{ message_ids: [unread], number: ALICE }, 400, 'invalid_parameter'],
    ]
    for (const [params, status, code] of cases) {
      const answer = await api('mark_read', params)
      assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
      assert.equal(answer.body.code, code)
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.ok(!control().reads(ALICE).includes(unread))
  })
})

describe('presence', () => {
  test('typing, recording and paused reach the contact; online and offline reach the network', async () => {
    for (const [presence, state] of [
      ['typing', 'composing'],
      ['recording', 'recording'],
      ['paused', 'paused'],
    ] as const) {
      const shown = await api('send_presence', { presence, number: ALICE })
      assert.equal(shown.status, 200, JSON.stringify(shown.body))
      await eventually(
        () => control().presence(ALICE).chatStates.at(-1),
        (seen) => seen?.from === ME && seen.state === state,
        `${presence} seen by the contact`,
      )
    }
    assert.equal((await api('send_presence', { presence: 'online' })).status, 200)
    await eventually(
      () => control().presence(ME).online,
      (online) => online === true,
      'online',
    )
    assert.equal((await api('send_presence', { presence: 'offline' })).status, 200)
    await eventually(
      () => control().presence(ME).online,
      (online) => online === false,
      'offline',
    )
  })

  test('a subscribed contact’s availability and typing arrive as presence.update', async () => {
    control().showPresence(ALICE, { state: 'available' })
    // Counted before subscribing: the contact's current presence may arrive before the answer does.
    const since = linked.events.seen.length
    const subscribed = await api('subscribe_presence', { number: ALICE })
    assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body))
    assert.equal(subscribed.body.chat, `${ALICE}@s.whatsapp.net`)
    const next = (presence: string) =>
      linked.events.waitFor(
        (event) =>
          linked.events.seen.indexOf(event) >= since &&
          event.event === 'presence.update' &&
          event.data.presence === presence &&
          event.data.participant_phone === ALICE,
        `presence ${presence}`,
      )
    await next('online')
    control().showPresence(ALICE, { state: 'composing', to: ME })
    const typing = await next('typing')
    assert.equal(typing.data.chat, `${ALICE}@s.whatsapp.net`)
    const alice = control()
      .accounts()
      .find((account) => account.phone === ALICE)
    assert.equal(typing.data.participant_lid, alice?.lid.replace(/:\d+@/, '@'), 'named by both ids')
    control().showPresence(ALICE, { state: 'recording', to: ME })
    await next('recording')
    control().showPresence(ALICE, { state: 'unavailable' })
    const offline = await next('offline')
    assert.equal(typeof offline.data.last_seen, 'number')
  })

  test('a chat state without a chat, availability with one, or an unknown state is refused', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ presence: 'typing' }, 400, 'missing_parameter'],
      [{ presence: 'online', number: ALICE }, 400, 'invalid_parameter'],
      [{ presence: 'dancing', number: ALICE }, 400, 'invalid_parameter'],
      [{ presence: 'typing', number: '19990000000' }, 422, 'recipient_not_found'],
    ]
    const seen = control().presence(ALICE).chatStates.length
    for (const [params, status, code] of cases) {
      const answer = await api('send_presence', params)
      assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
      assert.equal(answer.body.code, code)
    }
    assert.equal(control().presence(ALICE).chatStates.length, seen)
  })
})

describe('played', () => {
  // Alice listens to what she gets at once (sandbox phones leave messages unread by default).
  before(async () => {
    await linked.control.setBehaviour(ALICE, { reads: 'instantly' })
  })

  test('a voice note the contact listened to reaches message.status played', async () => {
    const voice = await sineAudio('ogg-opus', 1)
    const sent = await api('send_message', {
      number: ALICE,
      type: 'voice',
      media_base64: voice.toString('base64'),
    })
    assert.equal(sent.status, 200, JSON.stringify(sent.body))
    const id = sent.body.message.key.id
    const played = await linked.events.waitFor(
      (event) => event.event === 'message.status' && event.data.id === id && event.data.status === 'played',
      'played',
    )
    assert.equal(played.data.chat, `${ALICE}@s.whatsapp.net`)
  })
})
