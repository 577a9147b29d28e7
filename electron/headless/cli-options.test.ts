import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, parseConfig } from '../core/config'
import { serveOptions } from './cli-options'

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
