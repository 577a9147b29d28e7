import assert from 'node:assert/strict'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { decodeQr } from '../../bench/harness/app'
import { postOk } from '../../bench/harness/http'
import { startNode, type Started } from '../../bench/harness/processes'
import { type OutsideSandbox, startSandbox } from '../../bench/harness/sandbox'
import { runBackup, runRestore } from '../core/testing/backup-commands'
import { testStore } from '../core/testing/test-store'

const TOKEN = 'backup-test-token'
const ME = '15550710001'
const ALICE = '15550710002'
const MIN_MESSAGES = 20
const INTERVAL_MS = 100

function startServe(dataDir: string, controlUrl: string): Promise<Started> {
  return startNode(
    'serve',
    [
      'electron/headless/serve.ts',
      ...['--sandbox-url', controlUrl, '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    ],
    { waitFor: ['api'], env: { LINKDESK_ACCESS_TOKEN: TOKEN }, timeoutMs: 60_000 },
  )
}

/** Calls an operation of the server's API with the access token. */
function callOf(app: Started) {
  return <T>(name: string, params: Record<string, unknown> = {}) =>
    postOk<T>(`${app.values.get('api')}/${name}`, { access_token: TOKEN, ...params })
}

async function untilConnected(app: Started, instanceId: string): Promise<void> {
  for (;;) {
    const { instance } = await callOf(app)<{ instance: { state: string } }>('instance', {
      instance_id: instanceId,
    })
    if (instance.state === 'connected') return
    await sleep(50)
  }
}

/** The ids of the messages the server announced (message.received) and of those it stored, from its API. */
async function announcedAndStored(app: Started, instanceId: string) {
  const call = callOf(app)
  const { events } = await call<{ events: { data: { id: string } }[] }>('events', {
    instance_id: instanceId,
    event: 'message.received',
    limit: 500,
  })
  const stored: string[] = []
  let cursor: string | null | undefined
  do {
    const page = await call<{ messages: { id: string }[]; next_cursor: string | null }>('chat_messages', {
      instance_id: instanceId,
      number: ALICE,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    })
    stored.push(...page.messages.map((message) => message.id))
    cursor = page.next_cursor
  } while (cursor)
  return {
    announced: events.map((event) => String(event.data.id)).sort(),
    stored: stored.sort(),
  }
}

describe('backup and restore of a data folder', { skip: testStore() === 'postgres' }, () => {
  let sandbox: OutsideSandbox
  let app: Started
  let instanceId = ''
  const root = mkdtempSync(join(tmpdir(), 'linkdesk-backup-'))
  const dataDir = join(root, 'data')
  const backup = join(root, 'backup')

  before(async () => {
    sandbox = await startSandbox()
    app = await startServe(dataDir, sandbox.controlUrl)
    const call = callOf(app)
    await sandbox.addContact(ALICE, 'Alice')
    ;({ instance_id: instanceId } = await call<{ instance_id: string }>('create_instance'))
    const { base64 } = await call<{ base64: string }>('generate_qrcode', { instance_id: instanceId })
    await sandbox.link(decodeQr(base64), ME)
    await untilConnected(app, instanceId)
  })

  after(async () => {
    await app?.stop()
    await sandbox?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  test('a backup taken while messages arrive restores to a folder whose stored messages and events match', async () => {
    // Alice writes before, during and after the backup: it is taken while messages arrive and are stored.
    const sent: string[] = []
    let backupDone = false
    const sending = (async () => {
      for (let n = 0; n < MIN_MESSAGES || !backupDone; n++) {
        sent.push(await sandbox.send(ALICE, ME, `flowing ${n}`))
        await sleep(INTERVAL_MS)
      }
    })()
    while (sent.length < MIN_MESSAGES / 2) await sleep(20)
    const before = await announcedAndStored(app, instanceId)
    const made = await runBackup(dataDir, backup).finally(() => (backupDone = true))
    assert.equal(made.code, 0, made.stderr)
    assert.match(made.stdout, /Backed up .* files/)
    await sending
    const manifest = JSON.parse(readFileSync(join(backup, 'manifest.json'), 'utf8')) as {
      format: string
      files: { path: string; sha256: string }[]
    }
    assert.equal(manifest.format, 'linkdesk-data-backup')
    assert.deepEqual(
      ['auth/data.mdb', 'config.json', 'db/data.mdb'].filter(
        (path) => !manifest.files.some((f) => f.path === path),
      ),
      [],
    )

    // The original stops once it has everything (a restored copy beside it would take its session: 440).
    while ((await announcedAndStored(app, instanceId)).announced.length < sent.length) await sleep(100)
    await app.stop()
    const restoredDir = join(root, 'restored')
    const restored = await runRestore(backup, restoredDir)
    assert.equal(restored.code, 0, restored.stderr)
    assert.match(restored.stdout, /checksums verified/)
    const copy = await startServe(restoredDir, sandbox.controlUrl)
    try {
      await untilConnected(copy, instanceId)
      const { announced, stored } = await announcedAndStored(copy, instanceId)
      assert.deepEqual(
        stored,
        announced,
        'every stored message was announced, and every announced one stored',
      )
      assert.equal(new Set(announced).size, announced.length, 'each message announced once')
      for (const id of announced) assert.ok(sent.includes(id), `${id} is a message Alice sent`)
      for (const id of before.announced)
        assert.ok(announced.includes(id), `${id}, announced before the backup, is in it`)
    } finally {
      await copy.stop()
    }
    app = await startServe(dataDir, sandbox.controlUrl)
  })

  test('restore refuses a damaged backup, names the file, and writes nothing', async () => {
    const damaged = join(root, 'damaged')
    cpSync(backup, damaged, { recursive: true })
    const db = join(damaged, 'db', 'data.mdb')
    const bytes = readFileSync(db)
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff
    writeFileSync(db, bytes)
    rmSync(join(damaged, 'config.json'))

    const target = join(root, 'from-damaged')
    const result = await runRestore(damaged, target)
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /db\/data\.mdb does not match its checksum/)
    assert.match(result.stderr, /config\.json is missing/)
    assert.match(result.stderr, /Nothing was restored/)
    assert.equal(existsSync(target), false, 'no data folder was made')
    assert.deepEqual(
      readdirSync(root).filter((name) => name.includes('from-damaged')),
      [],
      'nothing was left beside it',
    )

    rmSync(join(damaged, 'manifest.json'))
    const unmarked = await runRestore(damaged, target)
    assert.equal(unmarked.code, 1)
    assert.match(unmarked.stderr, /is not a Linkdesk backup \(no manifest\.json\)/)
    assert.equal(existsSync(target), false)
  })

  test('restore refuses the data folder a server runs on and changes nothing there', async () => {
    const listing = () => readdirSync(dataDir).sort()
    const before = { files: listing(), settings: readFileSync(join(dataDir, 'config.json'), 'utf8') }
    const result = await runRestore(backup, dataDir)
    assert.equal(result.code, 1, result.stdout)
    assert.match(result.stderr, /is not empty \(it is a data folder: a server may be running on it\)/)
    assert.match(result.stderr, /Nothing was changed/)
    assert.deepEqual(listing(), before.files)
    assert.equal(readFileSync(join(dataDir, 'config.json'), 'utf8'), before.settings)
    await untilConnected(app, instanceId)

    const into = await runBackup(dataDir, dataDir)
    assert.equal(into.code, 1)
    assert.match(into.stderr, /cannot go inside the data folder/)
    // A node on PostgreSQL has no db folder: its data is in the database.
    const noStore = join(root, 'postgres-node')
    mkdirSync(noStore)
    writeFileSync(join(noStore, 'events.journal'), '')
    const fromPostgresNode = await runBackup(noStore, join(root, 'never'))
    assert.equal(fromPostgresNode.code, 1)
    assert.match(fromPostgresNode.stderr, /holds no embedded store .* back it up with pg_dump/)
    assert.equal(existsSync(join(root, 'never')), false)
    const again = await runBackup(dataDir, backup)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /is not empty.*new or empty folder/)
  })
})
