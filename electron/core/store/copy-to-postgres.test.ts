import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Core } from '../index'
import {
  call,
  decodeQr,
  ok,
  outsideSandbox,
  startCore,
  tempDataDir,
  waitForStatus,
} from '../testing/instance-harness'
import { silentLogger } from '../logger'
import { eventually } from '../testing/messaging-harness'
import type { Sandbox } from '@linkdesk/sandbox'
import { copyToPostgres } from './copy-to-postgres'
import { postgresSuite } from '../testing/postgres-server'

// The phone outlives the app: both the LMDB core and the PostgreSQL one reach it with `--sandbox-url`.
let sandbox: Sandbox
let controlUrl: string
let closeSandbox: () => Promise<void>
const dirs: string[] = []

before(async () => {
  ;({ sandbox, controlUrl, close: closeSandbox } = await outsideSandbox())
})

after(async () => {
  await closeSandbox()
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }))
})

function dataDir(): string {
  const dir = tempDataDir()
  dirs.push(dir)
  return dir
}

postgresSuite('copy-store', (pool) => {
  test('a data folder copied into PostgreSQL: the account stays linked, its messages and events come along', async () => {
    const url = pool().options.connectionString as string
    const phone = '15550310001'
    const contact = '15550310002'
    await sandbox.control.addAccount({ phone: contact, name: 'Contact' })
    const inboxTexts = () => sandbox.control.inbox(contact).map((m) => m.text)

    const lmdbDir = dataDir()
    let core: Core = await startCore({ dataDir: lmdbDir, sandboxUrl: controlUrl })
    let id: string
    let sentBefore: string
    try {
      id = (await ok(core.apiBase, 'create_instance', { name: 'copied' })).instance_id
      const { base64 } = await ok(core.apiBase, 'generate_qrcode', { instance_id: id })
      await sandbox.control.link({ qr: decodeQr(base64), phone })
      await waitForStatus(core, id, (s) => s.state === 'connected', 'the link')
      const sent = await ok(core.apiBase, 'send_message', {
        instance_id: id,
        number: contact,
        type: 'text',
        message: 'before the copy',
      })
      sentBefore = sent.message.key.id
    } finally {
      await core.close()
    }

    const count = await copyToPostgres(lmdbDir, url, silentLogger())
    assert.equal(count.instances, 1)
    assert.ok(count.authValues > 10, `credentials and keys copied (${count.authValues})`)
    assert.ok(count.messages >= 1 && count.events >= 3, JSON.stringify(count))
    await assert.rejects(copyToPostgres(lmdbDir, url, silentLogger()), /already holds Linkdesk data/)

    // A fresh data folder: everything the core needs now comes from PostgreSQL.
    core = await startCore({ dataDir: dataDir(), sandboxUrl: controlUrl, store: url })
    try {
      await waitForStatus(core, id, (s) => s.state === 'connected', 'the restored link, with no scan')
      const after = await call(core.apiBase, 'send_message', {
        instance_id: id,
        number: contact,
        type: 'text',
        message: 'after the copy',
      })
      assert.equal(after.status, 200, JSON.stringify(after.body))
      await eventually(inboxTexts, (texts) => texts.length === 2, "the contact's inbox")
      assert.deepEqual(inboxTexts(), ['before the copy', 'after the copy'])
      const events = await ok(core.apiBase, 'events', { instance_id: id, event: 'message.sent', limit: 10 })
      const sentIds = events.events.map((event: { data: { id: string } }) => event.data.id)
      assert.ok(sentIds.includes(sentBefore), 'the event log came along')
      const stored = await core.messages.store.get(id, sentBefore)
      assert.equal(stored?.message.text, 'before the copy', 'the message store came along')
    } finally {
      await core.close()
    }
  })
})
