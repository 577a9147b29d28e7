import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_TIMINGS } from '../config'
import type { EventName } from '../contract/event-catalogue'
import type { EventSink } from '../contract/events'
import { AppError } from '../errors'
import { silentLogger } from '../logger'
import type { CloseVerdict } from '../contract/instance-state'
import type { ReplacedVerdict } from '../contract/coordination'
import type { SessionEvents, SessionPort } from '../contract/network'
import type { WaAccount, WaConnection } from '../contract/network'
import { backoffDelay } from './backoff'
import { InstanceRuntime, type InstanceRuntimeOptions, type KeptStop } from './instance-runtime'
import type { InstanceStatus } from '../contract/instance-state'

const ACCOUNT: WaAccount = {
  id: '15551234567:3@s.whatsapp.net',
  number: '15551234567',
  name: null,
  lid: null,
}

/** A stand-in for the Baileys adapter that the test drives by hand: it records connects and ends. */
class FakeSession implements SessionPort {
  linked = true
  awaitingScan = false
  account: WaAccount | undefined = ACCOUNT
  connects = 0
  ends = 0
  events!: SessionEvents
  connect(): void {
    this.connects += 1
  }
  end(): void {
    this.ends += 1
  }
  async logout(): Promise<void> {}
  forgetCredentials(): void {
    this.linked = false
    this.account = undefined
  }
  async requestPairingCode(): Promise<string> {
    return 'ABCDEFGH'
  }
  /** What refreshVersion answers: whether the fetch found a version other than the last socket's. */
  newVersion = false
  async refreshVersion(): Promise<boolean> {
    return this.newVersion
  }
  async profile() {
    return { account: ACCOUNT, avatar: '' }
  }
  /** What connection() answers; the test sets it when it opens the fake. */
  live: WaConnection | undefined
  connection() {
    return this.live
  }
}

function setup(timings = {}, lease?: InstanceRuntimeOptions['lease'], stop?: KeptStop) {
  const session = new FakeSession()
  const emitted: Array<{ event: EventName; data: Record<string, unknown> }> = []
  const events: EventSink = {
    emit: (instanceId, event, data) => {
      emitted.push({ event, data })
      return { event, event_id: String(emitted.length), instance_id: instanceId, timestamp: '0', data }
    },
    emitForMessage: () => assert.fail('an instance announces no messages'),
    durable: async () => undefined,
  }
  let linked = true
  const kept: Array<KeptStop | null> = []
  const runtime = new InstanceRuntime(
    {
      instanceId: 'I',
      logger: silentLogger(),
      timings: { ...DEFAULT_TIMINGS, reconnectBaseMs: 20, reconnectMaxMs: 80, stableOpenMs: 50, ...timings },
      events,
      createSession: (sessionEvents) => {
        session.events = sessionEvents
        return session
      },
      wipeCredentials: async () => undefined,
      setLinked: async (value) => {
        linked = value
      },
      keepStopped: async (stop) => void kept.push(stop),
      ...(lease ? { lease } : {}),
      random: () => 0.5,
    },
    true,
    stop,
  )
  const next = (check: (s: InstanceStatus) => boolean) =>
    new Promise<InstanceStatus>((resolve) => {
      const stop = runtime.onChange((s) => check(s) && (stop(), resolve(s)))
    })
  return { session, runtime, emitted, next, linked: () => linked, kept }
}

const lost: CloseVerdict = { action: 'retry', code: 428, cause: 'connection_closed' }

test('backoff doubles from the base, jitters by ±50 % and is capped', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 10].map((attempt) => backoffDelay(attempt, 1000, 60_000, () => 0.5)),
    [1000, 2000, 4000, 8000, 60_000],
  )
  assert.equal(
    backoffDelay(2, 1000, 60_000, () => 0),
    2000,
  )
  assert.equal(
    backoffDelay(2, 1000, 60_000, () => 0.999),
    5996,
  )
})

test('lost connections retry with growing delays that reset after a stable open', async () => {
  const { session, runtime, next } = setup()
  await runtime.restore()
  assert.equal(session.connects, 1)
  const delays: number[] = []
  for (let i = 0; i < 4; i++) {
    // The delay is read against the clock just before the close that schedules it: a loaded machine pausing
    // between the close and this line must not make the delay look shorter.
    const closedAt = Date.now()
    session.events.close(lost, 'Connection Terminated')
    const status = runtime.status
    assert.equal(status.state, 'disconnected')
    delays.push(status.nextRetryAt! - closedAt)
    await next((s) => s.state === 'connecting' && s.cause === 'retrying')
  }
  assert.deepEqual(
    delays.map((d) => Math.round(d / 10) * 10),
    [20, 40, 80, 80],
  )
  assert.equal(session.connects, 5)

  session.events.open(ACCOUNT)
  await new Promise((resolve) => setTimeout(resolve, 80))
  session.events.close(lost, 'Connection Terminated')
  assert.ok(runtime.status.nextRetryAt! - Date.now() <= 20, 'backoff starts over after a stable open')
  await runtime.shutdown()
})

test('515 reconnects at once; logout verdicts wipe and emit instance.logged_out; stop verdicts keep the link', async () => {
  const { session, runtime, emitted, next, linked } = setup()
  await runtime.restore()
  session.events.close({ action: 'restart', code: 515, cause: 'restart_required' }, 'restart required')
  assert.equal(session.connects, 2)
  assert.equal(runtime.status.cause, 'restart_required')
  assert.equal(runtime.status.lastError, null, 'a routine restart is not an error')

  session.events.close({ action: 'stop', code: 405, cause: 'client_outdated' }, 'Connection Failure')
  assert.equal(runtime.status.cause, 'updating_client_version', 'a 405 first fetches the version again')
  await next((s) => s.state === 'disconnected')
  assert.equal(runtime.status.cause, 'client_outdated', 'no newer version: stopped')
  assert.equal(session.connects, 2)
  assert.equal(runtime.status.nextRetryAt, null)
  assert.equal(linked(), true)

  session.events.close({ action: 'logout', code: 401, cause: 'device_removed' }, 'Stream Errored (conflict)')
  const out = await next((s) => s.state === 'logged_out')
  assert.equal(out.cause, 'device_removed')
  assert.equal(linked(), false)
  assert.deepEqual(emitted.at(-1), { event: 'instance.logged_out', data: { reason: 'device_removed' } })
  assert.deepEqual(
    emitted.filter((e) => e.event === 'connection.update').map((e) => [e.data.previous_state, e.data.state]),
    [
      ['disconnected', 'connecting'],
      ['connecting', 'disconnected'],
      ['disconnected', 'logged_out'],
    ],
  )
  await runtime.shutdown()
})

const notConnected = (error: unknown) => error instanceof AppError && error.code === 'not_connected'

test('connection() waits for an instance on its way to connected, up to connectionWaitMs; other states answer 409 at once', async () => {
  const { session, runtime, next } = setup({ connectionWaitMs: 300 })
  const fake = { account: ACCOUNT } as WaConnection

  // Restoring, then connecting: the caller gets the connection once it opens.
  const waiting = runtime.connection()
  await runtime.restore()
  setTimeout(() => {
    session.live = fake
    session.events.open(ACCOUNT)
  }, 50)
  assert.equal(await waiting, fake)

  // Connecting for longer than the wait: 409 after it.
  session.live = undefined
  session.events.close(lost, 'Connection Terminated')
  let started = Date.now()
  await assert.rejects(runtime.connection(), notConnected)
  assert.ok(Date.now() - started >= 290, 'waited for the bound')

  // A stop (here a replaced session) is not waited for.
  session.events.close({ action: 'stop', code: 440, cause: 'connection_replaced' }, 'Stream Errored')
  started = Date.now()
  await assert.rejects(runtime.connection(), notConnected)
  assert.ok(Date.now() - started < 100, 'answered at once')

  // A stop while waiting ends the wait at once.
  const reconnecting = runtime.reconnect().catch(() => undefined)
  await next((s) => s.state === 'connecting')
  const pending = runtime.connection()
  started = Date.now()
  session.events.close({ action: 'stop', code: 405, cause: 'client_outdated' }, 'Connection Failure')
  await assert.rejects(pending, notConnected)
  assert.ok(Date.now() - started < 100, 'answered at once')
  await reconnecting
  await runtime.shutdown()
})

test('connection() does not wait for a retry due after the bound, nor for an unlinked instance', async () => {
  const { session, runtime } = setup({ connectionWaitMs: 100, reconnectBaseMs: 5000, reconnectMaxMs: 5000 })
  await runtime.restore()
  session.events.close(lost, 'Connection Terminated')
  assert.ok(runtime.status.nextRetryAt! > Date.now() + 100)
  let started = Date.now()
  await assert.rejects(runtime.connection(), notConnected)
  assert.ok(Date.now() - started < 50, 'answered at once')

  session.events.close({ action: 'logout', code: 401, cause: 'device_removed' }, 'Stream Errored (conflict)')
  await new Promise((resolve) => setTimeout(resolve, 10))
  started = Date.now()
  await assert.rejects(runtime.connection(), notConnected)
  assert.ok(Date.now() - started < 50, 'answered at once')
  await runtime.shutdown()
})

test('a 405 with a newer version to be had logs in once more with it; a second 405 stops', async () => {
  const { session, runtime } = setup()
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5))
  await runtime.restore()
  session.newVersion = true
  const outdated: CloseVerdict = { action: 'stop', code: 405, cause: 'client_outdated' }
  session.events.close(outdated, 'Connection Failure')
  await settle()
  assert.equal(session.connects, 2, 'logged in again')
  assert.equal(runtime.status.state, 'connecting')
  assert.equal(runtime.status.cause, 'updating_client_version')
  session.events.close(outdated, 'Connection Failure')
  assert.equal(runtime.status.state, 'disconnected')
  assert.equal(runtime.status.cause, 'client_outdated')
  assert.equal(session.connects, 2, 'tried once')

  // An open (or a reconnect) allows one more try the next time the network moves on.
  session.live = { account: ACCOUNT } as WaConnection
  const reconnected = runtime.reconnect()
  await settle()
  assert.equal(session.connects, 3)
  session.events.open(ACCOUNT)
  await reconnected
  session.events.close(outdated, 'Connection Failure')
  await settle()
  assert.equal(session.connects, 4)
  await runtime.shutdown()
})

test('after a 440 a cluster node that holds the instance retries with backoff until the coordinator says stop, which is kept; one that lost it keeps nothing', async () => {
  const replaced: CloseVerdict = { action: 'stop', code: 440, cause: 'connection_replaced' }
  const verdicts: ReplacedVerdict[] = ['retry', 'retry', 'stop']
  const lease = { mayAct: () => true, afterReplaced: async () => verdicts.shift() ?? 'elsewhere' }
  const { session, runtime, next, kept } = setup({}, lease)
  await runtime.restore()
  for (const attempt of [1, 2]) {
    session.events.close(replaced, 'Stream Errored (conflict)')
    const retrying = await next((s) => s.nextRetryAt !== null)
    assert.equal(retrying.cause, 'connection_replaced')
    await next((s) => s.state === 'connecting')
    assert.equal(session.connects, 1 + attempt, 'reconnected after the backoff')
  }
  assert.equal(kept.length, 0)
  session.events.close(replaced, 'Stream Errored (conflict)')
  const stopped = await next((s) => s.state === 'disconnected')
  assert.equal(stopped.cause, 'connection_replaced')
  assert.equal(stopped.nextRetryAt, null)
  // A command runs after the kept write (both on the instance's chain).
  await runtime.reroute()
  assert.deepEqual(
    kept.map((stop) => stop && [stop.cause, stop.code]),
    [['connection_replaced', 440]],
  )

  // Another node holds it now: this one stops quietly and keeps nothing (the record is shared).
  session.events.close(replaced, 'Stream Errored (conflict)')
  await next((s) => s.state === 'disconnected')
  await runtime.shutdown()
  assert.equal(kept.length, 1)
})

test('a node whose lease is in doubt does not connect, and tries again with backoff until it may', async () => {
  let mayAct = true
  const lease = { mayAct: () => mayAct, afterReplaced: async () => 'retry' as const }
  const { session, runtime, next } = setup({}, lease)
  await runtime.restore()
  session.events.open(ACCOUNT)
  assert.equal(session.connects, 1)
  mayAct = false
  session.events.close(lost, 'Connection Terminated')
  await next((s) => s.state === 'disconnected' && s.cause === 'connection_replaced')
  assert.notEqual(runtime.status.nextRetryAt, null, 'a retry is planned')
  assert.equal(session.connects, 1, 'no socket while the lease is in doubt')
  mayAct = true
  await next((s) => s.state === 'connecting')
  assert.equal(session.connects, 2, 'connected once the lease holds again')
  await runtime.shutdown()
})

test('a kept stop leaves a linked instance stopped at restore; reconnect clears it before connecting', async () => {
  const { session, runtime, kept } = setup({}, undefined, { cause: 'client_outdated', code: 405, at: 1000 })
  assert.equal(runtime.status.state, 'disconnected')
  assert.equal(runtime.status.cause, 'client_outdated')
  assert.equal(runtime.status.lastError?.code, 405)
  await runtime.restore()
  assert.equal(session.connects, 0, 'not connected at start')
  const reconnecting = runtime.reconnect().catch(() => undefined)
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(kept, [null])
  assert.equal(session.connects, 1)
  assert.equal(runtime.status.cause, 'reconnect_requested')
  await runtime.shutdown()
  await reconnecting

  // An open by another way (a new proxy's reroute) clears it too.
  const other = setup({}, undefined, { cause: 'connection_replaced', code: 440, at: 1000 })
  await other.runtime.reroute()
  other.session.events.open(ACCOUNT)
  await other.runtime.reroute()
  assert.deepEqual(other.kept, [null])
  await other.runtime.shutdown()
})

test('402 and 409 stops are kept like 440 and 405; a lost connection keeps nothing', async () => {
  for (const verdict of [
    { action: 'stop', code: 402, cause: 'temporarily_banned' },
    { action: 'stop', code: 409, cause: 'bad_user_agent' },
  ] as const) {
    const { session, runtime, kept } = setup()
    await runtime.restore()
    session.events.close(lost, 'Connection Terminated')
    await runtime.reroute()
    assert.equal(kept.length, 0, 'a lost connection keeps nothing')
    session.events.close(verdict, 'Connection Failure')
    assert.equal(runtime.status.cause, verdict.cause)
    // A command runs after the kept write (both on the instance's chain).
    await runtime.reroute()
    assert.deepEqual(
      kept.map((stop) => stop && [stop.cause, stop.code]),
      [[verdict.cause, verdict.code]],
    )
    await runtime.shutdown()
  }
})
