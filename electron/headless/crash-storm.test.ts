import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { postOk } from '../../bench/harness/http'
import type { Started } from '../../bench/harness/processes'
import { killNow, linkServedInstance, startStormServe } from '../core/testing/storm-node'
import { startSandbox } from '../../bench/harness/sandbox'
import { getOk } from '../../bench/harness/http'
import { runBackup, runRestore } from '../core/testing/backup-commands'
import { eventIdsByMessage, WebhookReceiver } from '../core/testing/webhook-receiver'
import { testStore, testStoreEnv } from '../core/testing/test-store'

// The app is killed with SIGKILL at random moments while a contact writes to its account at a steady rate;
// each time it is started again on the same data folder. Afterwards every message must be at the webhook
// receiver under exactly one event id (the same event may be posted twice: webhooks are at least once).
// On the embedded store a backup is taken mid-storm (`npm run backup`, while kills go on) and restored into a
// new folder, whose server must connect without a scan and send.
// CI runs a modest storm; LINKDESK_CRASH_MESSAGES, LINKDESK_CRASH_KILLS and LINKDESK_CRASH_INTERVAL_MS scale it.
const MESSAGES = Number(process.env.LINKDESK_CRASH_MESSAGES ?? 60)
const KILLS = Number(process.env.LINKDESK_CRASH_KILLS ?? 4)
const INTERVAL_MS = Number(process.env.LINKDESK_CRASH_INTERVAL_MS ?? 150)
const TOKEN = 'crash-storm-token'
const ME = '15550700001'
const ALICE = '15550700002'

async function startServe(dataDir: string, controlUrl: string): Promise<Started> {
  return startStormServe(dataDir, controlUrl, {
    LINKDESK_ACCESS_TOKEN: TOKEN,
    ...(await testStoreEnv(dataDir)),
  })
}

test(
  `kill -9 ${KILLS} times while ${MESSAGES} messages arrive: each reaches the webhook under one event id`,
  { timeout: 120_000 + 2 * MESSAGES * INTERVAL_MS + KILLS * 30_000 },
  async (t) => {
    const sandbox = await startSandbox()
    const receiver = await WebhookReceiver.start()
    const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-storm-'))
    const backupRoot = mkdtempSync(join(tmpdir(), 'linkdesk-storm-backup-'))
    let app = await startServe(dataDir, sandbox.controlUrl)
    t.after(async () => {
      await app.stop()
      await sandbox.stop()
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(backupRoot, { recursive: true, force: true })
    })
    const call = <T>(name: string, params: Record<string, unknown> = {}) =>
      postOk<T>(`${app.values.get('api')}/${name}`, { access_token: TOKEN, ...params })

    await sandbox.addContact(ALICE, 'Alice')
    const instanceId = await linkServedInstance(call, sandbox, ME, receiver.url)

    const sent: string[] = []
    const sending = (async () => {
      for (let n = 0; n < MESSAGES; n++) {
        sent.push(await sandbox.send(ALICE, ME, `storm ${n}`))
        await sleep(INTERVAL_MS)
      }
    })()
    const span = MESSAGES * INTERVAL_MS
    let restartMs = 0
    let backup: ReturnType<typeof runBackup> | undefined
    for (let k = 0; k < KILLS; k++) {
      if (k === Math.floor(KILLS / 2) && testStore() === 'lmdb')
        backup = runBackup(dataDir, join(backupRoot, 'backup'))
      // Random moments spread over the storm (a restart takes its share of the gap); the app is started
      // again at once, as a supervisor would.
      await sleep(Math.random() * 2 * Math.max(span / KILLS - restartMs, 100))
      await killNow(app)
      const restarting = Date.now()
      app = await startServe(dataDir, sandbox.controlUrl)
      restartMs = Date.now() - restarting
    }
    const sentBeforeLastKill = sent.length
    await sending

    const eventsOf = () => eventIdsByMessage(receiver)
    await receiver
      .until(() => sent.every((id) => eventsOf().has(id)), 60_000)
      .catch((error: unknown) => {
        const missing = sent.filter((id) => !eventsOf().has(id))
        throw new Error(`${missing.length} of ${sent.length} messages never reached the webhook`, {
          cause: error,
        })
      })
    const byMessage = eventsOf()
    assert.deepEqual([...byMessage.keys()].sort(), [...sent].sort(), 'no message other than those sent')
    for (const [id, eventIds] of byMessage) {
      assert.equal(eventIds.size, 1, `message ${id} reached the webhook under ${eventIds.size} event ids`)
    }
    const posts = receiver.accepted().filter(({ event }) => event.event === 'message.received').length
    t.diagnostic(
      `${sent.length} messages (${sentBeforeLastKill} before the last kill), ${KILLS} kills: ` +
        `${byMessage.size} event ids, ${posts - byMessage.size} re-posts`,
    )
    if (!backup) return

    const made = await backup
    assert.equal(made.code, 0, made.stderr)
    // The original stops for good: a second copy of one link beside it would take its session (440).
    await app.stop()
    const restoredDir = join(backupRoot, 'restored')
    const restored = await runRestore(join(backupRoot, 'backup'), restoredDir)
    assert.equal(restored.code, 0, restored.stderr)
    app = await startServe(restoredDir, sandbox.controlUrl)
    for (;;) {
      const { instance } = await call<{ instance: { state: string; linked: boolean } }>('instance', {
        instance_id: instanceId,
      })
      assert.notEqual(instance.state, 'qr', 'the restored instance needs no scan')
      if (instance.state === 'connected') break
      await sleep(50)
    }
    const text = 'sent by the restored copy'
    await call('send_message', { instance_id: instanceId, number: ALICE, type: 'text', message: text })
    const inbox = async () =>
      (
        await getOk<{ messages: { from: string; text?: string }[] }>(
          `${sandbox.controlUrl}/accounts/${ALICE}/messages`,
        )
      ).messages
    while (!(await inbox()).some((message) => message.from === ME && message.text === text)) await sleep(100)
    t.diagnostic(`a backup taken mid-storm, restored: connected without a scan and sent to ${ALICE}`)
  },
)
