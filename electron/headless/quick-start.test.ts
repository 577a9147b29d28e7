import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { chromiumMissing, launchBrowser, type TestBrowser } from '../../renderer/e2e/browser'
import { REPO_ROOT } from '../../renderer/e2e/headless-server'
import { ensureRendererBuilt } from '../../renderer/e2e/renderer-build'

// The README's quick start, run exactly as written: its first shell block in one "terminal" (the server), its
// second in another, with a HOME of its own so `~/linkdesk-try` is a fresh folder. Port 8686 is the README's.

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')

/** The ```sh blocks of the README's "## Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const start = README.indexOf('\n## Quick start\n')
  assert.ok(start >= 0, 'the README has a "## Quick start" section')
  const end = README.indexOf('\n## ', start + 1)
  const section = README.slice(start, end < 0 ? undefined : end)
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    process.kill(-child.pid!, 'SIGTERM')
  })
}

/** Runs a script in bash with the test's HOME and answers its standard output (fails on a non-zero exit). */
function runBash(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}\n${out}`)),
    )
  })
}

/** The JSON objects in `text`, in order: curl prints each answer with no newline after it. */
function jsonObjects(text: string): any[] {
  const found: any[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i += 1
      else if (char === '"') inString = false
    } else if (char === '"' && depth > 0) inString = true
    else if (char === '{') {
      if (depth === 0) start = i
      depth += 1
    } else if (char === '}' && depth > 0) {
      depth -= 1
      if (depth === 0) found.push(JSON.parse(text.slice(start, i + 1)))
    }
  }
  return found
}

let home: string
let server: ChildProcess | undefined
let serverOutput = ''
let env: NodeJS.ProcessEnv

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'linkdesk-quick-start-'))
  env = { ...process.env, HOME: home }
  delete env.LINKDESK_ACCESS_TOKEN
})

after(async () => {
  if (server) await stop(server)
  rmSync(home, { recursive: true, force: true })
})

test('the README quick start runs as written: a sandbox phone links, Bob receives the message and echoes it, the window shows the instance', async (t) => {
  const [serverBlock, scriptBlock, ...rest] = quickStartBlocks()
  assert.ok(serverBlock && scriptBlock, 'two shell blocks: the server, then the script')
  assert.equal(rest.length, 0)
  assert.ok(await portFree(8686), 'port 8686 (the quick start’s) must be free for this test')

  server = spawn('bash', ['-c', serverBlock], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const loginUrl = await new Promise<string>((resolve, reject) => {
    let err = ''
    server!.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    server!.stdout!.on('data', (chunk: Buffer) => {
      serverOutput += chunk.toString()
      const match = /ui-login: (\S+)/.exec(serverOutput)
      if (match?.[1]) resolve(match[1])
    })
    server!.once('exit', (code) => reject(new Error(`the server exited (${code}): ${err}`)))
  })
  assert.match(serverOutput, /api: http:\/\/127\.0\.0\.1:8686\/api\/v1/)

  // The script, then its last command again until Bob's echo is in it (it arrives a moment after the send).
  const lines = scriptBlock.trim().split('\n')
  const last = lines[lines.length - 1]!
  const output = await runBash(
    `${scriptBlock}\nfor n in $(seq 1 40); do echo; ${last} | grep -q 'echo: Hello Bob' && break; sleep 0.25; done\n` +
      `echo; echo "instance=$I"; ${last}`,
    env,
  )
  const answers = jsonObjects(output)
  const instanceId = /instance=(\S+)/.exec(output)?.[1]
  assert.match(instanceId ?? '', /^[0-9A-F]{24}$/, 'the sed line found the instance id')

  const [scan, contact, send, inbox] = answers
  assert.equal(scan.message, 'Linked by a sandbox phone')
  assert.match(scan.jid, /^15550001111:\d+@s\.whatsapp\.net$/)
  assert.equal(contact.status, 'success')
  assert.equal(send.status, 'success')
  assert.equal(
    send.message.message.extendedTextMessage?.text ?? send.message.message.conversation,
    'Hello Bob',
  )
  // Bob's phone in the sandbox received it, from the linked account.
  const received = inbox.messages.filter((message: { text: string }) => message.text === 'Hello Bob')
  assert.equal(received.length, 1)
  assert.match(received[0].from, /^15550001111/)
  // His echo came back as a message.received event of the instance.
  const events = answers[answers.length - 1]
  assert.ok(
    events.events.some(
      (event: any) =>
        event.event === 'message.received' &&
        event.instance_id === instanceId &&
        JSON.stringify(event.data).includes('echo: Hello Bob'),
    ),
    'Bob’s echo is a message.received event',
  )

  if (chromiumMissing) return t.skip(chromiumMissing)
  await ensureRendererBuilt()
  const browser: TestBrowser = await launchBrowser()
  try {
    const page = await browser.context.newPage()
    await page.goto(loginUrl)
    const card = page.getByRole('list', { name: 'Instances' }).getByRole('listitem').first()
    await card.getByText('+15550001111').first().waitFor()
    await card.getByText('Connected').first().waitFor()
    assert.match(await card.innerText(), new RegExp(instanceId!))
  } finally {
    await browser.close()
  }
})
