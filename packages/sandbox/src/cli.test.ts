import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('./cli.ts', import.meta.url))

test('npm run sandbox prints its websocket, root key, media CA and control URL, answers, and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, '--port', '0', '--log-level', 'silent'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const lines: string[] = []
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line)
    if (lines.length === 4) break
  }
  const [websocket, rootKey, mediaCa, control] = lines.map((line) => line.slice(line.indexOf(': ') + 2))
  assert.deepEqual(
    lines.map((line) => line.split(':')[0]),
    ['websocket', 'root-key', 'media-ca', 'control'],
  )
  assert.match(websocket ?? '', /^ws:\/\/127\.0\.0\.1:\d+\//)
  assert.match(rootKey ?? '', /^[0-9a-f]{64}$/)
  assert.ok(existsSync(mediaCa ?? ''))
  assert.match(control ?? '', /^http:\/\/127\.0\.0\.1:\d+\/sandbox$/)
  const endpoint = (await (await fetch(`${control}/endpoint`)).json()) as {
    websocket: string
    root_key: string
  }
  assert.equal(endpoint.websocket, websocket)
  assert.equal(endpoint.root_key, rootKey)
  child.kill('SIGTERM')
  assert.equal(await exited, 0)
  assert.equal(existsSync(mediaCa ?? ''), false, 'the CA file is removed on shutdown')
})

/** Starts `npm run sandbox` with these arguments and reads its four lines, by name. */
async function startSandbox(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', entry, '--port', '0', '--log-level', 'silent', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  )
  const lines: Record<string, string> = {}
  for await (const line of createInterface({ input: child.stdout })) {
    lines[line.slice(0, line.indexOf(': '))] = line.slice(line.indexOf(': ') + 2)
    if (Object.keys(lines).length === 4) break
  }
  return { child, exited, lines, control: lines.control ?? '' }
}

async function post(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.equal(response.status, 200, await response.clone().text())
  return response.json()
}

test('npm run sandbox --data-dir keeps the network through a SIGKILL; --reset starts it fresh', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-sandbox-cli-'))
  try {
    const first = await startSandbox(['--data-dir', dataDir])
    await post(`${first.control}/accounts`, { phone: '15550800001', name: 'Ann' })
    await post(`${first.control}/accounts`, { phone: '15550800002', name: 'Ben' })
    const { id } = await post(`${first.control}/accounts/15550800001/messages`, {
      to: '15550800002',
      text: 'kept',
    })
    const accounts = (await (await fetch(`${first.control}/accounts`)).json()).accounts
    assert.equal(
      first.lines['media-ca'],
      join(dataDir, 'sandbox', 'media-ca.pem'),
      'the CA sits in the data dir',
    )
    const caPem = readFileSync(first.lines['media-ca'] ?? '', 'utf8')
    first.child.kill('SIGKILL')
    assert.equal(await first.exited, 'SIGKILL')

    const second = await startSandbox(['--data-dir', dataDir])
    assert.equal(second.lines['root-key'], first.lines['root-key'], 'the same root key')
    assert.equal(second.lines.websocket, first.lines.websocket, 'the same websocket URL')
    assert.equal(readFileSync(second.lines['media-ca'] ?? '', 'utf8'), caPem, 'the same media CA')
    assert.deepEqual((await (await fetch(`${second.control}/accounts`)).json()).accounts, accounts)
    const inbox = (await (await fetch(`${second.control}/accounts/15550800002/messages`)).json()).messages
    assert.deepEqual(
      inbox.map((entry: { id: string; text: string }) => [entry.id, entry.text]),
      [[id, 'kept']],
    )
    second.child.kill('SIGTERM')
    await second.exited

    const fresh = await startSandbox(['--data-dir', dataDir, '--reset'])
    assert.notEqual(fresh.lines['root-key'], first.lines['root-key'], 'a new root key')
    assert.deepEqual((await (await fetch(`${fresh.control}/accounts`)).json()).accounts, [])
    fresh.child.kill('SIGTERM')
    await fresh.exited
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
})

test('npm run sandbox refuses --reset without --data-dir', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', entry, '--reset'], { encoding: 'utf8' })
  assert.equal(result.status, 2)
  assert.match(result.stderr, /--reset .* --data-dir/)
})
