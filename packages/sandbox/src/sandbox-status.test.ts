import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Sandbox } from './index'
import { SandboxError } from './errors'
import { linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

// Sam posts statuses; Tia is a contact of his, Uma is one he keeps his number from (not a contact).
const SAM = '15550390001'
const TIA = '15550390002'
const UMA = '15550390003'
const STATUS = 'status@broadcast'

let sandbox: Sandbox
let sam: SandboxClient
let tia: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
})

after(async () => {
  await sam?.stop()
  await tia?.stop()
  await sandbox.close()
})

const statusesOf = (phone: string) => sandbox.control.inbox(phone).filter((entry) => entry.chat === STATUS)

test('a phone with no contacts cannot post a status: no_recipients, and nothing is sent', async () => {
  await sandbox.control.addAccount({ phone: SAM, name: 'Sam' })
  await assert.rejects(
    sandbox.control.send(SAM, { to: STATUS, text: 'Anyone?' }),
    (error: unknown) => error instanceof SandboxError && error.code === 'no_recipients',
  )
  await sandbox.control.addAccount({ phone: TIA, name: 'Tia' })
  await sandbox.control.addAccount({ phone: UMA, name: 'Uma' })
  await sandbox.control.shareNumber(SAM, { with: UMA, shared: false })
  await sandbox.control.shareNumber(SAM, { with: TIA, shared: false })
  await assert.rejects(
    sandbox.control.send(SAM, { to: STATUS, text: 'Anyone now?' }),
    (error: unknown) => error instanceof SandboxError && error.code === 'no_recipients',
  )
  assert.deepEqual([...statusesOf(TIA), ...statusesOf(UMA)], [])
  await sandbox.control.shareNumber(SAM, { with: TIA, shared: true })
})

test('a phone’s status goes to its contacts’ phones and linked devices, not to those outside its contacts', async () => {
  tia = await linkedClient(sandbox, TIA)
  const { id } = await sandbox.control.send(SAM, { to: STATUS, text: 'Gone fishing' })
  const received = await tia.waitForMessage(id)
  assert.equal(received.key.remoteJid, STATUS)
  assert.equal(received.message?.conversation ?? received.message?.extendedTextMessage?.text, 'Gone fishing')
  assert.ok(statusesOf(TIA).some((entry) => entry.id === id && entry.from === SAM))
  assert.ok(!statusesOf(UMA).some((entry) => entry.id === id), 'Uma is not a contact of Sam')
})

test('a linked device’s status goes to the accounts of its statusJidList, and a viewer’s read receipt reaches the poster’s devices', async () => {
  sam = await linkedClient(sandbox, SAM)
  const sent = await sam.sock!.sendMessage(
    STATUS,
    { text: 'Back on Monday' },
    {
      statusJidList: [`${TIA}@s.whatsapp.net`, `${SAM}@s.whatsapp.net`],
      backgroundColor: '#336699',
      font: 2,
    },
  )
  const id = sent?.key.id ?? ''
  const received = await tia.waitForMessage(id)
  assert.equal(received.key.remoteJid, STATUS)
  assert.equal(received.message?.extendedTextMessage?.text, 'Back on Monday')
  assert.equal(received.message?.extendedTextMessage?.backgroundArgb, 0xff336699)
  assert.equal(received.message?.extendedTextMessage?.font, 2)
  assert.ok(statusesOf(TIA).some((entry) => entry.id === id && entry.text === 'Back on Monday'))
  assert.ok(!statusesOf(UMA).some((entry) => entry.id === id), 'not in the list')

  await tia.sock!.readMessages([received.key])
  // Baileys folds a receipt into its own upsert while that is still in its event buffer (protocol notes §8).
  await sam.waitFor(
    () =>
      sam.groupReceipts.some((receipt) => receipt.key.id === id && receipt.receipt.readTimestamp) ||
      sam.upserts.some(
        ({ message }) =>
          message.key.id === id && message.userReceipt?.some((receipt) => receipt.readTimestamp),
      ),
    'the read receipt of the status',
  )
})
