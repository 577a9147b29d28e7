import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, type ConfigInput, parseConfig } from '../core/config'
import { BACKUP_COMMAND, COPY_STORE_COMMAND, RESTORE_COMMAND, SERVE_COMMAND } from './cli-options'
import { type CommandSpec, readCommandLine } from './command-line'

function serveOptions(argv: string[], env: NodeJS.ProcessEnv): ConfigInput {
  const invocation = readCommandLine(SERVE_COMMAND, argv, env, '1.2.3')
  assert.equal(invocation.kind, 'run')
  return invocation.settings
}

test('the per-token request limit comes from --requests-per-minute, else from the environment', () => {
  const fromFlag = parseConfig(serveOptions(['--requests-per-minute', '6000'], {}))
  assert.equal(fromFlag.limits.requestsPerMinute, 6000)
  const fromEnv = parseConfig(serveOptions([], { LINKDESK_REQUESTS_PER_MINUTE: '1200' }))
  assert.equal(fromEnv.limits.requestsPerMinute, 1200)
  const both = parseConfig(
    serveOptions(['--requests-per-minute', '30', '--send-interval-ms', '0'], {
      LINKDESK_REQUESTS_PER_MINUTE: '1200',
    }),
  )
  assert.equal(both.limits.requestsPerMinute, 30)
  assert.equal(both.limits.sendIntervalMs, 0)
  assert.equal(parseConfig(serveOptions([], {})).limits.requestsPerMinute, 600)
})

test('a request limit that is not a positive whole number is refused with a clear error', () => {
  for (const bad of ['0', '-5', 'many', '1.5']) {
    assert.throws(
      () => parseConfig(serveOptions(['--requests-per-minute', bad], {})),
      (error: unknown) =>
        error instanceof ConfigError && /requestsPerMinute|requests-per-minute/.test(error.message),
      bad,
    )
  }
  assert.throws(() => serveOptions(['--requests-per-minute'], {}), ConfigError)
})

test('the wait for a connection comes from --connect-wait-ms, else the environment, else 15 s; bad values are refused', () => {
  assert.equal(parseConfig(serveOptions([], {})).timings.connectionWaitMs, 15_000)
  assert.equal(parseConfig(serveOptions(['--connect-wait-ms', '0'], {})).timings.connectionWaitMs, 0)
  const fromEnv = parseConfig(serveOptions([], { LINKDESK_CONNECT_WAIT_MS: '2500' }))
  assert.equal(fromEnv.timings.connectionWaitMs, 2500)
  for (const bad of ['-1', 'soon', '1.5']) {
    assert.throws(
      () => parseConfig(serveOptions([`--connect-wait-ms=${bad}`], {})),
      (error: unknown) => error instanceof ConfigError && /connectionWaitMs/.test(error.message),
      bad,
    )
  }
})

for (const spec of [SERVE_COMMAND] as CommandSpec<unknown>[]) {
  test(`npm run ${spec.script}: the help lists every option of the table with its default and variable`, () => {
    const invocation = readCommandLine(spec, ['--port', 'not-checked-before-help', '-h'], {}, '1.2.3')
    assert.equal(invocation.kind, 'print')
    const help = invocation.text
    for (const option of spec.options) {
      const label = `--${option.name}${option.kind === 'value' ? ` ${option.placeholder}` : ''}`
      const at = help.indexOf(label)
      assert.ok(at >= 0, `${label} is in the help`)
      const entry = help.slice(at, help.indexOf('\n', help.indexOf('\n', at) + 1))
      assert.ok(entry.includes(option.description), `${label} is described`)
      assert.ok(entry.includes(`default: ${option.default}`), `${label} shows its default`)
      assert.ok(option.env && entry.includes(`environment: ${option.env}`), `${label} names its variable`)
    }
  })

  test(`npm run ${spec.script}: an unknown option or argument names what to type instead`, () => {
    for (const [argv, expected] of [
      [['--log-levle', 'debug'], /unknown option --log-levle: did you mean --log-level\?/],
      [['--verison'], /unknown option --verison: did you mean --version\?/],
      [['-x'], /unknown option -x: did you mean --\S+\? \(--help lists every option\)/],
      [['8080'], /unexpected argument "8080"/],
      [['--port'], /--port/],
    ] as const) {
      assert.throws(
        () => readCommandLine(spec, argv, {}, '1.2.3'),
        (error: unknown) => error instanceof ConfigError && expected.test(error.message),
        argv.join(' '),
      )
    }
  })
}

test('flags read their variable as true/false or 1/0; the option given wins over the variable', () => {
  assert.equal(serveOptions([], { LINKDESK_SANDBOX: '1' }).sandbox, true)
  assert.equal(serveOptions([], { LINKDESK_SANDBOX: 'false' }).sandbox, false)
  assert.equal(serveOptions(['--sandbox'], { LINKDESK_SANDBOX: '0' }).sandbox, true)
  assert.throws(() => serveOptions([], { LINKDESK_SANDBOX: 'yes' }), /LINKDESK_SANDBOX must be true, false/)
  assert.equal(serveOptions(['--port', '9000'], { LINKDESK_PORT: '9100' }).port, '9000')
  assert.equal(serveOptions([], { LINKDESK_PORT: '9100' }).port, '9100')
})

test('--sandbox keeps the in-process sandbox in the data dir; --sandbox-reset starts it fresh, only with --sandbox', () => {
  assert.deepEqual(parseConfig(serveOptions(['--sandbox'], {})).network, { kind: 'sandbox', reset: false })
  assert.deepEqual(parseConfig(serveOptions(['--sandbox', '--sandbox-reset'], {})).network, {
    kind: 'sandbox',
    reset: true,
  })
  assert.throws(
    () => parseConfig(serveOptions(['--sandbox-reset'], {})),
    (error: unknown) =>
      error instanceof ConfigError && /--sandbox-reset .* with --sandbox/.test(error.message),
  )
})

test('the client version document comes from --wa-version-url; empty keeps the bundled version; a non-URL is refused', () => {
  assert.equal(parseConfig(serveOptions([], {})).waVersionUrl, undefined)
  const given = parseConfig(serveOptions(['--wa-version-url', 'https://example.test/sw.js'], {}))
  assert.equal(given.waVersionUrl, 'https://example.test/sw.js')
  assert.equal(parseConfig(serveOptions(['--wa-version-url', ''], {})).waVersionUrl, '')
  const fromEnv = parseConfig(serveOptions([], { LINKDESK_WA_VERSION_URL: 'http://127.0.0.1:1/sw.js' }))
  assert.equal(fromEnv.waVersionUrl, 'http://127.0.0.1:1/sw.js')
  assert.throws(
    () => parseConfig(serveOptions(['--wa-version-url', 'ftp://x/sw.js'], {})),
    (error: unknown) => error instanceof ConfigError && /wa-version-url/.test(error.message),
  )
})

test('--fsync (or LINKDESK_FSYNC) makes journal appends fsync; off by default', () => {
  assert.equal(parseConfig(serveOptions([], {})).fsync, false)
  assert.equal(parseConfig(serveOptions(['--fsync'], {})).fsync, true)
  assert.equal(parseConfig(serveOptions([], { LINKDESK_FSYNC: '1' })).fsync, true)
})

test('--store (or LINKDESK_STORE) takes lmdb or a postgres:// URL; lmdb by default; anything else is refused', () => {
  assert.deepEqual(parseConfig(serveOptions([], {})).store, { kind: 'lmdb' })
  const url = 'postgres://linkdesk:secret@db.internal:5432/linkdesk'
  assert.deepEqual(parseConfig(serveOptions(['--store', url], {})).store, { kind: 'postgres', url })
  assert.deepEqual(parseConfig(serveOptions([], { LINKDESK_STORE: url })).store, { kind: 'postgres', url })
  assert.deepEqual(parseConfig(serveOptions(['--store', 'lmdb'], { LINKDESK_STORE: url })).store, {
    kind: 'lmdb',
  })
  assert.throws(
    () => parseConfig(serveOptions(['--store', 'mysql://db/linkdesk'], {})),
    (error: unknown) =>
      error instanceof ConfigError && /store must be lmdb or a postgres/.test(error.message),
  )
})

test('npm run copy-store: its help lists its options; --to must be a postgres:// URL', () => {
  const invocation = readCommandLine(COPY_STORE_COMMAND, ['-h'], {}, '1.2.3')
  assert.equal(invocation.kind, 'print')
  if (invocation.kind !== 'print') return
  assert.match(invocation.text, /--data-dir DIR/)
  assert.match(invocation.text, /--to URL[\s\S]*environment: LINKDESK_STORE/)
  const run = readCommandLine(COPY_STORE_COMMAND, ['--to', 'postgres://h/db', '--data-dir', '/x'], {}, '1')
  assert.deepEqual(run, { kind: 'run', settings: { dataDir: '/x', to: 'postgres://h/db' } })
  assert.throws(
    () => readCommandLine(COPY_STORE_COMMAND, ['--to', 'http://h/db'], {}, '1'),
    (error: unknown) => error instanceof ConfigError && /--to must be a postgres/.test(error.message),
  )
})

test('npm run backup and npm run restore: their help lists their options; a folder given empty is refused', () => {
  const help = (spec: CommandSpec<unknown>) => {
    const invocation = readCommandLine(spec, ['-h'], {}, '1.2.3')
    return invocation.kind === 'print' ? invocation.text : ''
  }
  assert.match(help(BACKUP_COMMAND as CommandSpec<unknown>), /pg_dump[\s\S]*--data-dir DIR[\s\S]*--to DIR/)
  assert.match(help(RESTORE_COMMAND as CommandSpec<unknown>), /--from DIR[\s\S]*--data-dir DIR/)
  assert.deepEqual(readCommandLine(BACKUP_COMMAND, ['--data-dir', '/d', '--to', '/b'], {}, '1'), {
    kind: 'run',
    settings: { dataDir: '/d', to: '/b' },
  })
  assert.deepEqual(readCommandLine(RESTORE_COMMAND, ['--from', '/b', '--data-dir', '/d'], {}, '1'), {
    kind: 'run',
    settings: { from: '/b', dataDir: '/d' },
  })
  for (const [spec, argv, expected] of [
    [BACKUP_COMMAND, ['--to', ' '], /--to must not be empty/],
    [RESTORE_COMMAND, ['--from', ''], /--from must not be empty/],
    [RESTORE_COMMAND, ['--data-dir', ''], /--data-dir must not be empty/],
  ] as const) {
    assert.throws(
      () => readCommandLine(spec as CommandSpec<unknown>, [...argv], {}, '1'),
      (error: unknown) => error instanceof ConfigError && expected.test(error.message),
    )
  }
})

test('--delivery-threads (or LINKDESK_DELIVERY_THREADS) sets the webhook POST threads, 0 to 8; none by default', () => {
  assert.equal(parseConfig(serveOptions([], {})).deliveryThreads, 0)
  assert.equal(parseConfig(serveOptions(['--delivery-threads', '2'], {})).deliveryThreads, 2)
  assert.equal(parseConfig(serveOptions([], { LINKDESK_DELIVERY_THREADS: '3' })).deliveryThreads, 3)
  for (const bad of ['9', '-1', 'two', '1.5']) {
    assert.throws(
      () => parseConfig(serveOptions([`--delivery-threads=${bad}`], {})),
      /delivery-threads must be/,
    )
  }
})
