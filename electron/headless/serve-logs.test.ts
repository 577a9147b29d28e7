import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { decodeQr, ok } from '../core/testing/instance-harness'
import { waitForState } from '../core/testing/served-process'

const TOKEN = 'test-token-0123456789'

/**
 * The keys of a JSON object text, each as often as it is written (JSON.parse keeps only the last of a
 * repeated key, so the text is read here); nested objects' keys are read too, as `parent.key`.
 */
function writtenKeys(text: string): string[] {
  const keys: string[] = []
  let at = 0
  const skipSpace = () => {
    while (/\s/.test(text[at] ?? '')) at += 1
  }
  const readString = (): string => {
    const start = at
    at += 1
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1
    at += 1
    return JSON.parse(text.slice(start, at)) as string
  }
  const readValue = (path: string): void => {
    skipSpace()
    const char = text[at]
    if (char === '{') {
      at += 1
      skipSpace()
      while (text[at] !== '}') {
        skipSpace()
        const key = readString()
        keys.push(path + key)
        skipSpace()
        at += 1 // :
        readValue(`${path}${key}.`)
        skipSpace()
        if (text[at] === ',') at += 1
        skipSpace()
      }
      at += 1
    } else if (char === '[') {
      at += 1
      skipSpace()
      while (text[at] !== ']') {
        readValue(`${path}[].`)
        skipSpace()
        if (text[at] === ',') at += 1
        skipSpace()
      }
      at += 1
    } else if (char === '"') readString()
    else while (at < text.length && !/[,}\]\s]/.test(text[at]!)) at += 1
  }
  readValue('')
  return keys
}

function duplicates(keys: string[]): string[] {
  return keys.filter((key, index) => keys.indexOf(key) !== index)
}

test('a log line is read with each key as written', () => {
  assert.deepEqual(duplicates(writtenKeys('{"module":"a","x":{"module":1},"module":"b"}')), ['module'])
  assert.deepEqual(duplicates(writtenKeys('{"a":"}\\"","b":[{"c":1},{"c":2}],"d":null}')), ['b.[].c'])
})

test('a sandbox serve run: the banner names the network, data folder and token; a link logs its 515 at info; every log line has one key per field', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-serve-logs-'))
  const child = spawn(
    'npm',
    ['run', 'serve', '--', '--port', '0', '--data-dir', dataDir, '--sandbox', '--log-level', 'info'],
    {
      env: { ...process.env, LINKDESK_ACCESS_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  let logs = ''
  let output = ''
  child.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()))
  try {
    const api = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        // The banner is one write: once its api line is in, the rest is too.
        const match = /^api: (\S+)$/m.exec(output)
        if (match?.[1]) resolve(match[1])
      })
      void exited.then((code) => reject(new Error(`serve exited with ${code}: ${output}${logs}`)))
    })
    assert.match(output, /^network: sandbox \(simulated, in this process: no phone needed\)$/m)
    assert.ok(output.includes(`\ndata: ${dataDir}\n`), output)
    assert.match(
      output,
      /^token: the value of LINKDESK_ACCESS_TOKEN; more: open ui-login, then Tokens → Create$/m,
    )

    const { instance_id: id } = await ok(api, 'create_instance')
    const { base64 } = await ok(api, 'generate_qrcode', { instance_id: id })
    await ok(api, 'sandbox/link', { qr: decodeQr(base64), phone: '15550620001', name: 'Logs' })
    await waitForState(api, id, 'connected')

    process.kill(-child.pid!, 'SIGINT')
    await exited
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
  const lines = logs.split('\n').filter((line) => line.startsWith('{'))
  assert.ok(
    lines.some((line) => line.includes('"msg":"core stopped"')),
    'the run was logged to its end',
  )
  const restart = lines.map((line) => JSON.parse(line)).filter((entry) => entry.code === 515)
  assert.ok(restart.length > 0, 'the link went through the 515 restart')
  assert.deepEqual(
    restart.filter((entry) => entry.level >= 50),
    [],
    'the routine 515 is never an error line',
  )
  const streamErrors = lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level >= 50 && entry.msg === 'stream errored out')
  assert.deepEqual(streamErrors, [], 'no stream error line at error level')
  const repeated = lines.flatMap((line) => duplicates(writtenKeys(line)).map((key) => `${key} in ${line}`))
  assert.deepEqual(repeated, [])
})
