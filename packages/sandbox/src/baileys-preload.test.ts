import assert from 'node:assert/strict'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url))
const preload = fileURLToPath(new URL('../preload/baileys-preload.mjs', import.meta.url))
const example = fileURLToPath(new URL('../examples/baileys-6-bot.cjs', import.meta.url))
const ME = '15550810001'
const ANN = '15550810002'

/** The lines a process prints, each awaited by a test of its text. */
function linesOf(child: ChildProcessWithoutNullStreams) {
  const seen: string[] = []
  const waiters = new Set<() => void>()
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push(line)
    for (const wake of waiters) wake()
  })
  return {
    seen,
    next(match: (line: string) => boolean, what: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = seen.find(match)
          if (line === undefined) return
          waiters.delete(check)
          child.off('exit', exited)
          resolve(line)
        }
        const exited = (code: number | null) => reject(new Error(`exited (${code}) before ${what}`))
        waiters.add(check)
        child.once('exit', exited)
        check()
      })
    },
  }
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

test('the README example: a Baileys 6 bot, unchanged, started with the preload links to the sandbox, sends and receives', async () => {
  const sandbox = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--log-level', 'silent'])
  const authDir = mkdtempSync(join(tmpdir(), 'linkdesk-preload-'))
  let bot: ChildProcessWithoutNullStreams | undefined
  try {
    const control = (await linesOf(sandbox).next((l) => l.startsWith('control: '), 'the control URL')).slice(
      9,
    )
    await post(`${control}/accounts`, { phone: ME, name: 'Bot' })
    await post(`${control}/accounts`, { phone: ANN, name: 'Ann' })
    bot = spawn(process.execPath, ['--import', preload, example, authDir, ANN], {
      env: { ...process.env, LINKDESK_SANDBOX_CONTROL: control },
    })
    bot.stderr.pipe(process.stderr)
    const out = linesOf(bot)
    const qr = (await out.next((l) => l.startsWith('qr '), 'a QR')).slice(3)
    await post(`${control}/link`, { qr, phone: ME })
    const sentId = (await out.next((l) => l.startsWith('sent '), 'the hello')).slice(5)
    const inbox = async () => (await (await fetch(`${control}/accounts/${ANN}/messages`)).json()).messages
    const hello = (await inbox()).find((entry: { id: string }) => entry.id === sentId)
    assert.deepEqual([hello?.from, hello?.text], [ME, 'hello from baileys 6'], 'Ann received the hello')
    await post(`${control}/accounts/${ANN}/messages`, { to: ME, text: 'hi, bot' })
    assert.equal(
      await out.next((l) => l.startsWith('received '), 'Ann’s message'),
      `received ${ANN}@s.whatsapp.net hi, bot`,
    )
  } finally {
    bot?.kill('SIGTERM')
    sandbox.kill('SIGTERM')
    rmSync(authDir, { recursive: true, force: true })
  }
})
