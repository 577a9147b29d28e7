import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CLI_OPTIONS, readCommandLine, UsageError } from './cli-options'

test('npm run sandbox: the help lists every option of the table with its default and variable', () => {
  const invocation = readCommandLine(['--port', 'not-checked-before-help', '-h'], {}, '1.2.3')
  assert.equal(invocation.kind, 'print')
  const help = invocation.kind === 'print' ? invocation.text : ''
  for (const option of CLI_OPTIONS) {
    const label = `--${option.name}${option.placeholder ? ` ${option.placeholder}` : ''}`
    const at = help.indexOf(label)
    assert.ok(at >= 0, `${label} is in the help`)
    const entry = help.slice(at, help.indexOf('\n', help.indexOf('\n', at) + 1))
    assert.ok(entry.includes(option.description), `${label} is described`)
    assert.ok(entry.includes(`default: ${option.default}`), `${label} shows its default`)
    assert.ok(option.env && entry.includes(`environment: ${option.env}`), `${label} names its variable`)
  }
})

test('npm run sandbox: an unknown option or argument names what to type instead', () => {
  for (const [argv, expected] of [
    [['--log-levle', 'debug'], /unknown option --log-levle: did you mean --log-level\?/],
    [['--verison'], /unknown option --verison: did you mean --version\?/],
    [['-x'], /unknown option -x: did you mean --\S+\? \(--help lists every option\)/],
    [['8080'], /unexpected argument "8080"/],
    [['--port'], /--port/],
  ] as const) {
    assert.throws(
      () => readCommandLine(argv, {}, '1.2.3'),
      (error: unknown) => error instanceof UsageError && expected.test(error.message),
      argv.join(' '),
    )
  }
})

test('npm run sandbox checks its port, log level, data dir and latency', () => {
  const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => readCommandLine(argv, env, '1.2.3')
  const inMemory = { dataDir: undefined, reset: false, latency: undefined }
  assert.deepEqual(run([]), { kind: 'run', settings: { port: 7000, logLevel: 'info', ...inMemory } })
  assert.deepEqual(run(['--port', '0'], { LINKDESK_SANDBOX_LOG_LEVEL: 'silent' }), {
    kind: 'run',
    settings: { port: 0, logLevel: 'silent', ...inMemory },
  })
  assert.deepEqual(run(['--data-dir', 'state', '--reset']), {
    kind: 'run',
    settings: { port: 7000, logLevel: 'info', dataDir: 'state', reset: true, latency: undefined },
  })
  const latency = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
    (run(argv, env) as { settings: { latency: unknown } }).settings.latency
  assert.deepEqual(latency(['--latency', '0']), { minMs: 0, jitterMs: 0 })
  assert.deepEqual(latency([], { LINKDESK_SANDBOX_LATENCY: '40+25' }), { minMs: 40, jitterMs: 25 })
  assert.throws(() => run(['--latency', 'fast']), /--latency must be MIN or MIN\+JITTER/)
  assert.throws(() => run(['--latency=-5']), /--latency must be MIN or MIN\+JITTER/)
  assert.throws(() => run(['--data-dir', ' ']), /--data-dir must not be empty/)
  assert.throws(() => run(['--port', '70000']), /--port must be a port number/)
  assert.throws(() => run(['--log-level', 'loud']), /--log-level must be one of/)
  assert.deepEqual(run(['--version']), { kind: 'print', text: 'linkdesk sandbox 1.2.3\n' })
})

test('npm run sandbox: its flag reads its variable as true/false or 1/0; the option given wins over the variable', () => {
  const run = (argv: string[], env: NodeJS.ProcessEnv) => readCommandLine(argv, env, '1.2.3')
  const reset = (env: NodeJS.ProcessEnv) => run(['--data-dir', 'state'], env)
  assert.deepEqual(reset({ LINKDESK_SANDBOX_RESET: '1' }), run(['--data-dir', 'state', '--reset'], {}))
  assert.deepEqual(reset({ LINKDESK_SANDBOX_RESET: 'false' }), run(['--data-dir', 'state'], {}))
  assert.throws(() => reset({ LINKDESK_SANDBOX_RESET: 'yes' }), /LINKDESK_SANDBOX_RESET must be true, false/)
  assert.deepEqual(run(['--port', '9000'], { LINKDESK_SANDBOX_PORT: '9100' }), run(['--port', '9000'], {}))
})
