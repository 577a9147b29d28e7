import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LinkdeskEvent } from '../contract/events'
import { inboxEntry } from '@linkdesk/sandbox/testing'
import { linkedCoreFixture } from '../testing/linked-core'

const ME = '15550460001'
const ALICE = '15550460002'
const BOB = '15550460003'

const linked = linkedCoreFixture(ME, [
  { phone: ALICE, name: 'Alice' },
  { phone: BOB, name: 'Bob' },
])

const control = () => linked.control
const api = linked.api

async function sendPoll(number: string, multiple = false): Promise<string> {
  const sent = await api('send_poll', {
    number,
    question: 'Which day suits you?',
    options: ['Monday', 'Tuesday', 'Wednesday'],
    multiple,
  })
  assert.equal(sent.status, 200, JSON.stringify(sent.body))
  return sent.body.message.key.id
}

async function vote(phone: string, pollId: string, options: string[]): Promise<LinkdeskEvent> {
  const { id } = await control().send(phone, { to: ME, vote: { id: pollId, options } })
  return linked.events.waitFor(
    (event) => event.event === 'poll.vote' && event.data.id === id,
    `vote of ${phone}`,
  )
}

const tallyOf = (event: LinkdeskEvent) =>
  Object.fromEntries(
    (event.data.tally as Array<{ option: string; votes: number }>).map(({ option, votes }) => [
      option,
      votes,
    ]),
  )

test('a poll arrives as a poll; votes from two contacts are tallied, and a changed vote replaces the first', async () => {
  const pollId = await sendPoll(ALICE)
  const seenByAlice = await inboxEntry(linked.core.sandbox!, ALICE, pollId)
  assert.deepEqual(seenByAlice.poll, {
    question: 'Which day suits you?',
    options: ['Monday', 'Tuesday', 'Wednesday'],
    selectable: 1,
  })
  const pollForBob = await sendPoll(BOB)
  await inboxEntry(linked.core.sandbox!, BOB, pollForBob)

  const alice = await vote(ALICE, pollId, ['Tuesday'])
  assert.equal(alice.data.target_id, pollId)
  assert.equal(alice.data.voter, `${ALICE}@s.whatsapp.net`)
  assert.deepEqual(alice.data.options, ['Tuesday'])
  assert.deepEqual(tallyOf(alice), { Monday: 0, Tuesday: 1, Wednesday: 0 })

  const changed = await vote(ALICE, pollId, ['Wednesday'])
  assert.deepEqual(changed.data.options, ['Wednesday'])
  assert.deepEqual(
    tallyOf(changed),
    { Monday: 0, Tuesday: 0, Wednesday: 1 },
    'the changed vote replaces the first',
  )

  const bob = await vote(BOB, pollForBob, ['Monday'])
  assert.deepEqual(tallyOf(bob), { Monday: 1, Tuesday: 0, Wednesday: 0 }, 'each poll has its own tally')
})

test('a multiple-choice poll in a group tallies every member’s picks', async () => {
  const { groupId } = await control().createGroup({ subject: 'Team', participants: [ALICE, BOB, ME] })
  const pollId = await sendPoll(groupId, true)
  await inboxEntry(linked.core.sandbox!, ALICE, pollId)
  await inboxEntry(linked.core.sandbox!, BOB, pollId)
  const { id: aliceVote } = await control().send(ALICE, {
    to: groupId,
    vote: { id: pollId, options: ['Monday', 'Tuesday'] },
  })
  await linked.events.waitFor((event) => event.event === 'poll.vote' && event.data.id === aliceVote, 'alice')
  const { id: bobVote } = await control().send(BOB, {
    to: groupId,
    vote: { id: pollId, options: ['Tuesday'] },
  })
  const last = await linked.events.waitFor(
    (event) => event.event === 'poll.vote' && event.data.id === bobVote,
    'bob',
  )
  assert.deepEqual(tallyOf(last), { Monday: 1, Tuesday: 2, Wednesday: 0 })
  const tuesday = (last.data.tally as Array<{ option: string; voters: string[] }>).find(
    (row) => row.option === 'Tuesday',
  )
  assert.equal(tuesday?.voters.length, 2)
})

test('bad polls are refused and nothing is sent; a contact cannot vote for an option the poll lacks', async () => {
  const before = control().inbox(ALICE).length
  const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
    [{ question: 'Q', options: ['only one'] }, 400, 'invalid_parameter', /2 to 12/],
    [
      { question: 'Q', options: Array.from({ length: 13 }, (_, i) => `o${i}`) },
      400,
      'invalid_parameter',
      /options/,
    ],
    [{ question: 'Q', options: ['same', 'same'] }, 400, 'invalid_parameter', /differ/],
    [{ question: '', options: ['a', 'b'] }, 400, 'missing_parameter', /question/],
    [{ question: 'Q', options: ['a', 'b'], number: '19990000000' }, 422, 'recipient_not_found', /./],
  ]
  for (const [params, status, code, message] of cases) {
    const answer = await api('send_poll', { number: ALICE, ...params })
    assert.equal(answer.status, status, JSON.stringify([params, answer.body]))
    assert.equal(answer.body.code, code)
    assert.match(answer.body.message, message)
  }
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(control().inbox(ALICE).length, before)
  const pollId = await sendPoll(ALICE)
  await inboxEntry(linked.core.sandbox!, ALICE, pollId)
  await assert.rejects(control().send(ALICE, { to: ME, vote: { id: pollId, options: ['Friday'] } }), /Friday/)
  await assert.rejects(
    control().send(ALICE, { to: ME, vote: { id: pollId, options: ['Monday', 'Tuesday'] } }),
    /one option/,
  )
})
