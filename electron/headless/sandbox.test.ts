import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const entry = fileURLToPath(new URL('./sandbox.ts', import.meta.url))

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
