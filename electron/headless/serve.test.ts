import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { runToEnd } from '../core/testing/run-to-end'

const TOKEN = 'serve-test-token-42'

test('npm run serve starts as a user would, answers HTTP, serves the UI and stops cleanly on Ctrl-C', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'linkdesk-serve-'))
  const child = spawn(
    'npm',
    [
      'run',
      'serve',
      '--',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'info',
      '--wa-version-url',
      '',
    ],
    {
      env: { ...process.env, LINKDESK_ACCESS_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  let logs = ''
  child.stderr.on('data', (chunk: Buffer) => (logs += chunk.toString()))
  try {
    let output = ''
    const apiBase = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /^api: (\S+)$/m.exec(output)
        if (match?.[1]) resolve(match[1])
      })
      void exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${output}`)))
    })
    assert.match(output, /^ui-login: http:\/\/127\.0\.0\.1:\d+\/#login=\S+$/m)

    const created = await fetch(`${apiBase}/create_instance?access_token=${TOKEN}`)
    assert.equal(created.status, 200)
    const body = (await created.json()) as Record<string, unknown>
    assert.equal(body.status, 'success')
    assert.equal(typeof body.instance_id, 'string')

    const bad = await fetch(`${apiBase}/create_instance?access_token=wrong-token`)
    assert.equal(bad.status, 401)
    assert.equal(((await bad.json()) as Record<string, unknown>).code, 'unauthorized')

    if (existsSync('renderer/dist/index.html')) {
      const page = await fetch(new URL('/', apiBase))
      assert.equal(page.status, 200)
      assert.match(await page.text(), /<div id="root">/)
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/)
    }

    const settingsFile = join(dataDir, 'config.json')
    assert.equal(
      statSync(settingsFile).mode & 0o777,
      0o600,
      'settings and token hashes are readable by the user only',
    )

    // Ctrl-C in a terminal signals the whole process group: npm, tsx and the server.
    process.kill(-child.pid!, 'SIGINT')
    await exited
    assert.match(logs, /"msg":"core stopped"/, 'the server closed its stores and sockets before exiting')
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
  }
})

test('npm run serve refuses a bad port with a clear message and exit code 2', async () => {
  const child = spawn('npm', ['run', 'serve', '--', '--port', 'eighty'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  assert.equal(code, 2)
  assert.match(stderr, /linkdesk: port must be a whole number from 0 to 65535 \(got "eighty"\)/)
})

/** Runs `npm run <script> -- <args>` to its end. */
function runScript(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runToEnd('npm', ['run', '--silent', script, '--', ...args])
}

for (const script of ['serve', 'sandbox']) {
  test(`npm run ${script} -- --help prints every option with its default and variable, and exits 0`, async () => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout } = await runScript(script, [flag])
      assert.equal(code, 0, flag)
      assert.match(stdout, new RegExp(`^Usage: npm run ${script} -- \\[options\\]`), flag)
      assert.match(stdout, /--port N\s.*\n\s+default: \d+; environment: LINKDESK_\w*PORT/, flag)
      assert.match(stdout, /--log-level L\s.*\n\s+default: info; environment: LINKDESK_\w*LOG_LEVEL/, flag)
      assert.match(stdout, /-h, --help/)
    }
  })

  test(`npm run ${script} -- --version prints the version; an unknown option names the nearest one`, async () => {
    const version = await runScript(script, ['--version'])
    assert.equal(version.code, 0)
    assert.match(version.stdout, /^linkdesk( sandbox)? 0\.1\.0\n$/)
    const unknown = await runScript(script, ['--prot', '8080'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown option --prot: did you mean --port\? \(--help lists every option\)/)
  })
}
