import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Core } from '../index'
import { call, ok, outsideSandboxForFile, waitForStatus } from '../testing/instance-harness'
import { silentLogger } from '../logger'
import { eventually } from '../testing/messaging-harness'
import { copyToPostgres } from './copy-to-postgres'
import { postgresSuite } from '../testing/postgres-server'

// The phone outlives the app: both the LMDB core and the PostgreSQL one reach it with `--sandbox-url`.
const outside = outsideSandboxForFile()

postgresSuite('copy-store', (pool) => {
  test('a data folder copied into PostgreSQL: the account stays linked, its messages and events come along', async () => {
    const url = pool().options.connectionString as string
    const phone = '15550310001'
    const contact = '15550310002'
    await outside.sandbox.control.addAccount({ phone: contact, name: 'Contact' })
    const inboxTexts = () => outside.sandbox.control.inbox(contact).map((m) => m.text)

    const lmdbDir = outside.dataDir()
    let core: Core = await outside.startCore({ dataDir: lmdbDir })
    let id: string
    let sentBefore: string
    try {
      id = await outside.link(core.apiBase, phone, { name: 'copied' })
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
    core = await outside.startCore({ dataDir: outside.dataDir(), store: url })
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
