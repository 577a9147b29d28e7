import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import pino from 'pino'
import type { Sandbox } from './index'
import { createControlApp } from './control/control-app'
import { linkedClient, startTestSandbox } from './testing/sandbox-fixture'
import type { SandboxClient } from './testing/sandbox-client'

// Ann has not shared her number with Ben: to Ben's linked device she is her LID alone, until she shares it.
const ANN = '15550380001'
const BEN = '15550380002'

let sandbox: Sandbox
let ann: SandboxClient
let ben: SandboxClient
let base: string
let close: () => Promise<void>

before(async () => {
  sandbox = await startTestSandbox()
  const app = createControlApp(sandbox.control, { logger: pino({ level: 'silent' }) })
  await app.listen({ host: '127.0.0.1', port: 0 })
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/sandbox`
  close = () => app.close()
  ann = await linkedClient(sandbox, ANN)
  ben = await linkedClient(sandbox, BEN)
})

after(async () => {
  await ann.stop()
  await ben.stop()
  await close()
  await sandbox.close()
})

async function call(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

const lidOf = (phone: string) =>
  sandbox.control.accounts().find((account) => account.phone === phone)?.lid ?? ''

test('a number kept from an account: its phone’s and its linked device’s messages come by LID alone, the number once shared', async () => {
  const hidden = await call(`/accounts/${ANN}/number`, { with: BEN, shared: false })
  assert.equal(hidden.status, 200, JSON.stringify(hidden.body))
  assert.deepEqual(hidden.body, { status: 'success', hidden_from: [BEN] })

  const fromPhone = await sandbox.control.send(ANN, { to: BEN, text: 'from a stranger’s phone' })
  const sent = await ann.sock!.sendMessage(`${BEN}@s.whatsapp.net`, { text: 'from a stranger’s computer' })
  for (const id of [fromPhone.id, sent?.key.id ?? '']) {
    const { key } = await ben.waitForMessage(id)
    assert.equal(key.remoteJid?.replace(/:\d+@/, '@'), lidOf(ANN))
    assert.equal(key.remoteJidAlt, undefined, 'the number is not in the envelope')
  }
  assert.equal(await ben.sock!.signalRepository.lidMapping.getPNForLID(lidOf(ANN)), null)
  // Ann's own devices still see her chat with Ben by number.
  assert.equal((await ann.waitForMessage(fromPhone.id)).key.remoteJid, `${BEN}@s.whatsapp.net`)

  const shared = await call(`/accounts/${ANN}/number`, { with: BEN, shared: true })
  assert.deepEqual(shared.body, { status: 'success', hidden_from: [] })
  const known = await sandbox.control.send(ANN, { to: BEN, text: 'my number is yours now' })
  const { key } = await ben.waitForMessage(known.id)
  assert.equal(key.remoteJid, `${ANN}@s.whatsapp.net`)
  assert.equal(key.remoteJidAlt, lidOf(ANN))
})

test('sharing a number: bad input is refused and changes nothing', async () => {
  await call(`/accounts/${ANN}/number`, { with: BEN, shared: false })
  for (const [phone, body, status, code] of [
    [ANN, { with: BEN }, 400, 'missing_parameter'],
    [ANN, { shared: true }, 400, 'missing_parameter'],
    [ANN, { with: BEN, shared: 'yes' }, 400, 'invalid_parameter'],
    [ANN, { with: ANN, shared: true }, 400, 'invalid_parameter'],
    [ANN, { with: '15550389999', shared: true }, 404, 'account_not_found'],
    ['15550389999', { with: BEN, shared: true }, 404, 'account_not_found'],
  ] as const) {
    const refused = await call(`/accounts/${phone}/number`, body)
    assert.equal(refused.status, status, JSON.stringify([body, refused.body]))
    assert.equal(refused.body.code, code)
  }
  const still = await sandbox.control.shareNumber(ANN, { with: BEN, shared: false })
  assert.deepEqual(still.hiddenFrom, [BEN])
})
