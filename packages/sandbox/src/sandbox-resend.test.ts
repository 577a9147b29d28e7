import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { type BinaryNode, generateMessageIDV2 } from '@whiskeysockets/baileys'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

const ME = '15550001121'
const ALICE = '15551230021'

let sandbox: Sandbox
let device: SandboxClient

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })
  device = await linkedClient(sandbox, ME)
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

test('a message sent again under the same id is acknowledged again but kept once by the contact, as WhatsApp does', async () => {
  const sock = device.sock
  assert.ok(sock)
  const to = `${ALICE}@s.whatsapp.net`
  const id = generateMessageIDV2(sock.user?.id)
  let acked = 0
  let secondAck: () => void = () => undefined
  const twice = new Promise<void>((resolve) => (secondAck = resolve))
  sock.ws.on('CB:ack,class:message', (node: BinaryNode) => {
    if (node.attrs.id === id && ++acked === 2) secondAck()
  })
  await sock.relayMessage(to, { conversation: 'only once' }, { messageId: id })
  await inboxEntry(sandbox, ALICE, id)
  // Sent again as a client does after a lost acknowledgement: the same id, here with another text.
  await sock.relayMessage(to, { conversation: 'a second copy' }, { messageId: id })
  await twice
  const inbox = sandbox.control.inbox(ALICE)
  assert.deepEqual(
    inbox.filter((entry) => entry.id === id).map((entry) => entry.text),
    ['only once'],
  )
  assert.equal(inbox.filter((entry) => entry.text === 'a second copy').length, 0)
})
