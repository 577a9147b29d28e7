import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import type { WAMessage } from '@whiskeysockets/baileys'
import type { Sandbox } from '@linkdesk/sandbox'
import { linkedClient, type SandboxClient, startTestSandbox } from '@linkdesk/sandbox/testing'

// Linkdesk patches Baileys (patches/, applied by patch-package on install) so that handleMessage awaits
// the socket config's onDecrypted before the delivery receipt: without it a crash between the receipt and
// the journal loses the message for good. These tests fail if an upgrade or an install drops the patch.

const ME = '15550003333'
const ALICE = '15551230021'

let sandbox: Sandbox
let device: SandboxClient
let onDecrypted: (message: WAMessage) => Promise<void> | void = () => undefined

before(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })
  device = await linkedClient(sandbox, ME, { onDecrypted: (message) => onDecrypted(message) })
})

after(async () => {
  await device.stop()
  await sandbox.close()
})

test('the installed Baileys awaits onDecrypted before it sends a delivery receipt', () => {
  const require = createRequire(import.meta.url)
  const root = dirname(require.resolve('@whiskeysockets/baileys/package.json'))
  const source = readFileSync(join(root, 'lib/Socket/messages-recv.js'), 'utf8')
  const hook = source.indexOf('await config.onDecrypted(msg')
  assert.ok(hook > 0, 'patches/@whiskeysockets+baileys+*.patch is not applied: run npx patch-package')
  const receipt = source.indexOf('await sendReceipt(msg.key.remoteJid', hook)
  assert.ok(receipt > hook, 'the hook must come before the delivery receipt')
})

test('the receipt waits for onDecrypted, which gets the decrypted message', async () => {
  let release: () => void = () => undefined
  const decrypted = new Promise<WAMessage>((resolveDecrypted) => {
    onDecrypted = (message) => {
      resolveDecrypted(message)
      return new Promise<void>((resolve) => (release = resolve))
    }
  })
  const receipts: string[][] = []
  const onReceipt = ({ phone, ids }: { phone: string; ids: string[] }) => phone === ME && receipts.push(ids)
  sandbox.control.events.on('receipt', onReceipt)
  try {
    const { id } = await sandbox.control.send(ALICE, { to: ME, text: 'keep me first' })
    const message = await decrypted
    assert.equal(message.key.id, id)
    assert.equal(message.message?.conversation, 'keep me first')
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(receipts, [], 'no receipt while the message is not kept')
    release()
    await sandbox.control.events.waitFor('receipt', (event) => event.phone === ME && event.ids.includes(id))
    await device.waitForMessage(id)
  } finally {
    sandbox.control.events.off('receipt', onReceipt)
    onDecrypted = () => undefined
  }
})

test('when onDecrypted throws, no receipt goes out and the network keeps the message', async () => {
  onDecrypted = () => {
    throw new Error('the disk is full')
  }
  const receipts: string[] = []
  const onReceipt = ({ phone, ids, type }: { phone: string; ids: string[]; type: string }) => {
    if (phone === ME && type !== 'retry') receipts.push(...ids)
  }
  sandbox.control.events.on('receipt', onReceipt)
  try {
    const { id } = await sandbox.control.send(ALICE, { to: ME, text: 'not kept' })
    const login = sandbox.control.events.waitFor('login', (event) => event.phone === ME)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.ok(!receipts.includes(id), 'no receipt for a message the app did not keep')
    onDecrypted = () => undefined
    void device.sock?.ws.close()
    assert.deepEqual((await login).redelivered, [id])
  } finally {
    sandbox.control.events.off('receipt', onReceipt)
  }
})
