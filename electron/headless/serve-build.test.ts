import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { after, test } from 'node:test'
import { postOk } from '../../bench/harness/http'
import { startSandbox } from '../../bench/harness/sandbox'
import { verifyWebhookSignature, WEBHOOK_HEADERS } from '../core/events/webhook-signature'
import { linkServedInstance } from '../core/testing/storm-node'
import { WebhookReceiver } from '../core/testing/webhook-receiver'

/**
 * A checkout of its own (this one's files, its node_modules linked): other test files start `npm run serve`
 * from the shared checkout at the same time, and would build (or find built) what these tests watch.
 */
const SOURCE_REPO = resolve(import.meta.dirname, '../..')
const NOT_COPIED = new Set(['node_modules', 'out', '.git', 'test-results'])
const REPO = mkdtempSync(join(tmpdir(), 'linkdesk-checkout-'))
cpSync(SOURCE_REPO, REPO, {
  recursive: true,
  filter: (path) => !NOT_COPIED.has(relative(SOURCE_REPO, path).split('/')[0] ?? ''),
})
symlinkSync(join(SOURCE_REPO, 'node_modules'), join(REPO, 'node_modules'))
after(() => rmSync(REPO, { recursive: true, force: true }))

const OUT = join(REPO, 'out')
const BUILT_SERVE = join(OUT, 'headless', 'serve.js')

interface Started {
  child: ChildProcess
  apiBase: string
  stderr: () => string
}

/** `npm run serve` from this checkout on a data folder of its own, answering its API base once it listens. */
function serve(args: string[] = []): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-serve-build-'))
  const child = spawn(
    'npm',
    ['run', 'serve', '--', '--port', '0', '--data-dir', dataDir, '--wa-version-url', '', ...args],
    {
      cwd: REPO,
      env: { ...process.env, LINKDESK_ACCESS_TOKEN: 'serve-build-token-42' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolveStarted, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /^api: (\S+)$/m.exec(stdout)
      if (match?.[1]) resolveStarted({ child, apiBase: match[1], stderr: () => stderr })
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)))
  })
}

/** Stops a started `serve` (its whole process group, as Ctrl-C does) and waits for it to be gone. */
async function stop(started: Started | undefined): Promise<void> {
  const child = started?.child
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((done) => child.once('exit', done))
  process.kill(-child.pid!, 'SIGINT')
  await exited
}

async function healthy(started: Started): Promise<void> {
  const response = await fetch(`${started.apiBase}/health`)
  assert.equal(response.status, 200)
  assert.equal(((await response.json()) as { status: string }).status, 'success')
}

const building = (started: Started) => /building out\/headless/.test(started.stderr())

test('two `npm run serve` from one checkout with no build: one builds, the other waits for it, both answer', async () => {
  rmSync(join(OUT, 'headless'), { recursive: true, force: true })
  const starts = await Promise.allSettled([serve(), serve()])
  const [first, second] = starts.map((s) => (s.status === 'fulfilled' ? s.value : undefined))
  try {
    for (const start of starts) if (start.status === 'rejected') throw start.reason
    await healthy(first!)
    await healthy(second!)
    assert.equal([first!, second!].filter(building).length, 1, 'built once')
    assert.deepEqual(
      readdirSync(OUT).filter((name) => name.startsWith('.headless')),
      [],
      'no lock, staging or previous build left behind',
    )
  } finally {
    await stop(first)
    await stop(second)
  }
})

test('a start with a current build does not rebuild; one after a source changed does', async () => {
  assert.ok(existsSync(BUILT_SERVE), 'built by the test before')
  const builtAt = statSync(BUILT_SERVE).mtimeMs
  let started: Started | undefined = await serve()
  try {
    await healthy(started)
    assert.equal(building(started), false)
    assert.equal(statSync(BUILT_SERVE).mtimeMs, builtAt, 'the build is the same')
  } finally {
    await stop(started)
  }

  // A source saved after the build was made: the next start builds again before it starts.
  const source = join(REPO, 'electron/headless/serve.ts')
  const now = new Date()
  utimesSync(source, now, now)
  started = await serve()
  try {
    await healthy(started)
    assert.equal(building(started), true)
    assert.ok(statSync(BUILT_SERVE).mtimeMs > builtAt, 'built again')
  } finally {
    await stop(started)
  }
})

test('the built `npm run serve` delivers webhooks through its delivery thread: a message arrives signed', async (t) => {
  const sandbox = await startSandbox()
  const receiver = await WebhookReceiver.start()
  const started = await serve([
    '--sandbox-url',
    sandbox.controlUrl,
    '--send-interval-ms',
    '0',
    '--delivery-threads',
    '1',
  ])
  t.after(async () => {
    await stop(started)
    await sandbox.stop()
    await receiver.close()
  })
  // The build emits the thread's entry beside the chunk that starts it (the server does not start without it).
  assert.ok(existsSync(join(OUT, 'headless', 'delivery-thread.js')), 'the delivery thread is built')
  const call = <T>(name: string, params: Record<string, unknown> = {}) =>
    postOk<T>(`${started.apiBase}/${name}`, { access_token: 'serve-build-token-42', ...params })
  await sandbox.addContact('15550710002', 'Alice')
  const instanceId = await linkServedInstance(call, sandbox, '15550710001', receiver.url)
  const { webhook } = await call<{ webhook: { secret: string } }>('get_webhook', { instance_id: instanceId })
  const { secret } = webhook
  const messageId = await sandbox.send('15550710002', '15550710001', 'through the thread')
  const isMessage = ({ event }: { event: { event: string; data: Record<string, unknown> } }) =>
    event.event === 'message.received' && event.data.id === messageId
  await receiver.until(() => receiver.accepted().some(isMessage), 60_000)
  const { headers, body } = receiver.accepted().find(isMessage)!
  const header = (name: string) => String(headers[name])
  assert.ok(
    verifyWebhookSignature(
      secret,
      header(WEBHOOK_HEADERS.timestamp),
      body,
      header(WEBHOOK_HEADERS.signature),
    ),
    'signed with the instance webhook secret',
  )
})
