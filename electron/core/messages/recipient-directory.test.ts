import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AppError } from '../errors'
import { parseRecipient } from '../contract/recipient'
import { RecipientDirectory } from './recipient-directory'

function countingLookup(existing: Record<string, string>) {
  const asked: string[][] = []
  const lookup = async (phones: string[]) => {
    asked.push(phones)
    return new Map(phones.filter((p) => existing[p]).map((p) => [p, existing[p] as string]))
  }
  return { asked, lookup }
}

test('a found number resolves to the jid the network returned, and is asked once while cached', async () => {
  const directory = new RecipientDirectory()
  const { asked, lookup } = countingLookup({ '15551234567': '15551234567@s.whatsapp.net' })
  const recipient = parseRecipient('+1 555 123 4567')
  const [a, b] = await Promise.all([
    directory.resolve('i1', recipient, lookup),
    directory.resolve('i1', recipient, lookup),
  ])
  assert.equal(a, '15551234567@s.whatsapp.net')
  assert.equal(b, a)
  assert.equal(await directory.resolve('i1', recipient, lookup), a)
  assert.equal(asked.length, 1)
})

test('a missing number is recipient_not_found, and asked again once the short cache expires', async () => {
  let now = 0
  const directory = new RecipientDirectory({ now: () => now, missingTtlMs: 1000 })
  const { asked, lookup } = countingLookup({})
  const recipient = parseRecipient('15550000000')
  const isNotFound = (error: unknown) => error instanceof AppError && error.code === 'recipient_not_found'
  await assert.rejects(directory.resolve('i1', recipient, lookup), isNotFound)
  await assert.rejects(directory.resolve('i1', recipient, lookup), isNotFound)
  assert.equal(asked.length, 1)
  now = 1001
  await assert.rejects(directory.resolve('i1', recipient, lookup), isNotFound)
  assert.equal(asked.length, 2)
})

test('groups and LIDs are used as given, without a lookup', async () => {
  const directory = new RecipientDirectory()
  const { asked, lookup } = countingLookup({})
  assert.equal(
    await directory.resolve('i1', parseRecipient('1203630412345@g.us'), lookup),
    '1203630412345@g.us',
  )
  assert.equal(await directory.resolve('i1', parseRecipient('987654321@lid'), lookup), '987654321@lid')
  assert.equal(asked.length, 0)
})

test('a failed lookup is not cached', async () => {
  const directory = new RecipientDirectory()
  let fail = true
  const lookup = async (phones: string[]) => {
    if (fail) throw new Error('timed out')
    return new Map(phones.map((p) => [p, `${p}@s.whatsapp.net`]))
  }
  const recipient = parseRecipient('15551234567')
  await assert.rejects(directory.resolve('i1', recipient, lookup), /timed out/)
  fail = false
  assert.equal(await directory.resolve('i1', recipient, lookup), '15551234567@s.whatsapp.net')
})
