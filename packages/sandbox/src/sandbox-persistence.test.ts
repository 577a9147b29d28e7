import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import type { Sandbox } from './index'
import { inboxEntry, linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import { SandboxClient } from './testing/sandbox-client'

const ME = '15550009001'
const ALICE = '15550009002'

const stateDir = mkdtempSync(join(tmpdir(), 'linkdesk-sandbox-persistence-'))
let sandbox: Sandbox | undefined
const clients: SandboxClient[] = []

after(async () => {
  for (const client of clients) await client.stop()
  await sandbox?.close()
  rmSync(stateDir, { recursive: true, force: true })
})

test('what a device is owed while away survives a sandbox restart and arrives at its next login', async () => {
  sandbox = await startTestSandbox(undefined, stateDir)
  await sandbox.control.addAccount({ phone: ALICE, name: 'Alice' })
  const first = await linkedClient(sandbox, ME)
  clients.push(first)
  const hello = await sandbox.control.send(ALICE, { to: ME, text: 'before' })
  await first.waitForMessage(hello.id)

  const away = sandbox.control.events.waitFor('disconnect', (event) => event.phone === ME)
  await first.stop()
  await away
  const queued = [
    await sandbox.control.send(ALICE, { to: ME, text: 'while away, one' }),
    await sandbox.control.send(ALICE, { to: ME, text: 'while away, two' }),
  ].map(({ id }) => id)
  const rootKey = sandbox.control.endpoint.rootPublicKey.toString('hex')
  await sandbox.close()

  sandbox = await startTestSandbox(undefined, stateDir)
  assert.equal(sandbox.control.endpoint.rootPublicKey.toString('hex'), rootKey)
  const login = sandbox.control.events.waitFor('login', (event) => event.phone === ME)
  // The same device (same credentials and keys) starts again against the restarted network.
  const again = new SandboxClient({ endpoint: sandbox.endpoint, auth: first.auth }).start()
  clients.push(again)
  await again.waitForOpen()
  assert.deepEqual((await login).redelivered, queued, 'the held messages are written again, in order')
  for (const [index, id] of queued.entries()) {
    const message = await again.waitForMessage(id)
    assert.equal(message.message?.conversation, ['while away, one', 'while away, two'][index])
  }

  const reply = await again.sock!.sendMessage(`${ALICE}@s.whatsapp.net`, { text: 'back again' })
  const entry = await inboxEntry(sandbox, ALICE, reply!.key.id!)
  assert.equal(entry.text, 'back again')
  assert.equal(again.closes.length, 0, 'no logout, no refused login')
  const gone = sandbox.control.events.waitFor('disconnect', (event) => event.phone === ME)
  await again.stop()
  await gone
})

test('a message sent before a restart is sent again after it, when the device asks with a retry receipt', async () => {
  const device = clients.at(-1)!
  const lidUser = sandbox!.control
    .accounts()
    .find((account) => account.phone === ALICE)!
    .lid.split('@')[0]!
  const { id } = await sandbox!.control.send(ALICE, { to: ME, text: 'sent before the restart' })
  await sandbox!.close()
  // The device lost its session with Alice: it cannot decrypt the held message and asks for it again.
  assert.ok(device.auth.deleteSessions(lidUser) > 0)

  sandbox = await startTestSandbox(undefined, stateDir)
  const again = new SandboxClient({ endpoint: sandbox.endpoint, auth: device.auth }).start()
  clients.push(again)
  const retried = sandbox.control.events.waitFor('receipt', (r) => r.type === 'retry' && r.ids.includes(id))
  const healed = await again.waitFor(
    () => again.upserts.find((u) => u.message.key.id === id && u.message.message?.conversation)?.message,
    'the message sent again',
  )
  await retried
  assert.equal(healed.message?.conversation, 'sent before the restart')
})
