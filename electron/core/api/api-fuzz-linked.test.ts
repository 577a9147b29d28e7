import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { WebhookReceiver } from '../testing/webhook-receiver'
import type { InstanceStatus } from '../contract/instance-state'
import { decodeQr, FAST_TIMINGS, waitForStatus } from '../testing/instance-harness'
import {
  eventually,
  linkedInstance,
  pngBytes,
  recordEvents,
  startFileServer,
} from '../testing/messaging-harness'
import { releaseLongTimers } from '@linkdesk/sandbox/testing'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'
import {
  buildRequest,
  checkAnswer,
  credential,
  encoding,
  fuzzOptions,
  type RequestHow,
  verb,
  weirdValue,
} from '../testing/fuzz-arbitraries'

/**
 * Property-based fuzzing of the send and instance operations against a LINKED instance: a real Baileys
 * socket logged in through the sandbox, with two contacts it has already written with and a group of the
 * three. Whatever the parameters, encodings, verbs, credentials and order of operations:
 *  - every answer is a success body or the error envelope whose code matches the HTTP status, never a 5xx;
 *  - a rejected send delivers nothing: no contact receives a message and no message.sent is logged for it;
 *  - an accepted send is received once by each contact it addresses, and logged once as message.sent; a
 *    request repeating an idempotency key answers the first message and sends nothing;
 *  - after any sequence the instance is consistent (linked as the operations left it, and connected again
 *    once reconnected or rescanned).
 * What contacts received is read from the sandbox phones' inboxes after a barrier: a message sent last to the
 * group reaches both contacts after anything sent before it (one socket, one send queue per instance).
 *
 * The sequences include what unlinks the instance (reinitialize/reboot, destroy/reset_instance, the phone
 * removing the device) rather than leaving it out: the model follows the new id and the unlinked state, sends
 * must then be refused (or answer an earlier message by its idempotency key), and each sequence ends by
 * reconnecting or scanning a new QR code with the same phone, so every sequence starts linked to the same
 * account and contacts. A network cut waits until the instance noticed it (see the drop step).
 *
 * By default 40 batches of sends and 12 sequences run (a few seconds); LINKDESK_FUZZ_RUNS=n runs about n
 * requests per property instead, and LINKDESK_FUZZ_SEED replays a reported run. A failure is reported as it
 * ran, without shrinking: the instance and contacts carry state from case to case, so a shrunk replay would
 * run against a different instance and mislead.
 */

// Baileys leaves 30 s timers behind ended sockets; a standalone run of this file would wait for them.
releaseLongTimers()

const ME = '15550500001'
const ALICE = '15550500002'
const BOB = '15550500003'
const NOBODY = '15550599999'
const CONTACTS = [ALICE, BOB] as const

/** Placeholders resolved when a step runs: destroy replaces the instance id, and event ids are only known then. */
const CURRENT = '$current-instance'
const DESTROYED = '$destroyed-instance'
const HOOK_URL = '$webhook-url'
const LAST_EVENT = '$last-event'

const PNG = pngBytes(3000)
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1500, 0x20), Buffer.from('\n%%EOF\n')])
const MEDIA_BYTES = 64 * 1024

interface Fixture {
  t: TestCore
  /** The instance under test: destroy (reset_instance) replaces its id. */
  id: string
  destroyed: string[]
  /** Whether the instance is linked, as the steps so far left it. */
  linked: boolean
  groupId: string
  /** A group the linked account is not in. */
  foreignGroupId: string
  lids: Record<string, string>
  fileUrl(path: string): string
  hookUrl: string
  ledger: SendLedger
  close(): Promise<void>
}

async function startLinked(): Promise<Fixture> {
  const t = await startTestCore({
    sandbox: true,
    limits: {
      requestsPerMinute: 1_000_000,
      sendIntervalMs: 0,
      sendJitterMs: 0,
      textChars: 2000,
      mediaBytes: MEDIA_BYTES,
      mediaFetchMs: 2000,
    },
    timings: FAST_TIMINGS,
    // Failed deliveries give redeliver_failed something to do; retries take milliseconds.
    events: { webhook: { backoffBaseMs: 5, backoffMaxMs: 20, maxAttempts: 2 } },
  })
  const files = await startFileServer({
    '/photo.png': { type: 'image/png', body: PNG },
    '/report.pdf': { type: 'application/pdf', body: PDF },
    '/page.html': { type: 'text/html', body: Buffer.from('<html></html>') },
    '/huge.bin': { type: 'application/octet-stream', body: Buffer.alloc(MEDIA_BYTES + 1, 7) },
  })
  const receiver = await WebhookReceiver.start((_, index) => ({ status: index % 3 === 2 ? 500 : 200 }))
  const control = t.core.sandbox!.control
  const events = recordEvents(t.core)
  for (const [phone, name] of [
    [ALICE, 'Alice'],
    [BOB, 'Bob'],
  ]) {
    await control.addAccount({ phone: phone as string, name })
  }
  const id = await linkedInstance(t.core, ME)
  const { groupId } = await control.createGroup({ subject: 'Fuzz', participants: [ALICE, ME, BOB] })
  const { groupId: foreignGroupId } = await control.createGroup({
    subject: 'Elsewhere',
    participants: [ALICE, BOB],
  })
  const lids = Object.fromEntries(
    control.accounts().map((account) => [account.phone, account.lid.replace(/:\d+@/, '@')]),
  )
  const fixture: Fixture = {
    t,
    id,
    destroyed: [],
    linked: true,
    groupId,
    foreignGroupId,
    lids,
    fileUrl: files.url,
    hookUrl: receiver.url,
    ledger: undefined as unknown as SendLedger,
    close: async () => {
      await t.stop()
      await files.close()
      await receiver.close()
    },
  }
  fixture.ledger = new SendLedger(fixture)
  // Established contacts: each has written to the account and been answered.
  for (const contact of CONTACTS) {
    const { id: incoming } = await control.send(contact, { to: ME, text: `hi from ${contact}` })
    await events.waitFor((e) => e.event === 'message.received' && e.data.id === incoming, 'contact message')
    const mark = fixture.ledger.begin()
    await fixture.ledger.sendChecked(mark, contact, `hello ${contact}`)
    await fixture.ledger.settle(mark)
  }
  return fixture
}

// ---- Sending, and what the contacts received ----

interface SendSpec {
  path: string
  params: Record<string, unknown>
  /** An Idempotency-Key header. */
  header: string | undefined
  how: RequestHow
}

/** A send answered with success whose message left now (not an idempotent replay). */
interface FreshSend {
  id: string
  /** The contacts it addresses. */
  recipients: string[]
  text: string | null
  sha256: string | null
}

interface Mark {
  inbox: Record<string, number>
  /** The newest event before the mark (the event log is read after it). */
  cursor: string | undefined
  fresh: FreshSend[]
}

/** The media bytes' SHA-256 (hex) in a send answer, if it is a media message. */
function mediaSha(message: Record<string, any>): string | null {
  const media =
    message.imageMessage ??
    message.videoMessage ??
    message.audioMessage ??
    message.documentMessage ??
    message.documentWithCaptionMessage?.message?.documentMessage
  return media?.fileSha256 ? Buffer.from(media.fileSha256, 'base64').toString('hex') : null
}

/**
 * Keeps account of the sends: which message ids were answered (and under which idempotency key), and after
 * a mark, that exactly the fresh ones reached their contacts, once each, and were logged once.
 */
class SendLedger {
  private readonly known = new Set<string>()
  private readonly keys = new Map<string, string>()
  private barriers = 0

  constructor(private readonly f: Fixture) {}

  begin(): Mark {
    const control = this.f.t.core.sandbox!.control
    return {
      inbox: Object.fromEntries(CONTACTS.map((phone) => [phone, control.inbox(phone).length])),
      cursor: this.f.t.core.events.lastEventId(),
      fresh: [],
    }
  }

  /** Records a success answer to a send of `instanceId` made with `key` (if any); true if a new message left. */
  accepted(mark: Mark, instanceId: string, key: string | undefined, answer: any): boolean {
    const id: string = answer.message.key.id
    assert.match(id, /^[0-9A-F]{10,}$/, 'a message id')
    if (key !== undefined) {
      const scoped = `${instanceId}\u0000${key}`
      const first = this.keys.get(scoped)
      if (first !== undefined) {
        assert.equal(id, first, `idempotency key ${JSON.stringify(key)} answers its first message`)
        return false
      }
      this.keys.set(scoped, id)
    }
    assert.ok(!this.known.has(id), `message ${id} answered twice without its idempotency key`)
    this.known.add(id)
    const content = answer.message.message
    mark.fresh.push({
      id,
      recipients: this.recipientsOf(answer.message.key.remoteJid),
      text: content.extendedTextMessage?.text ?? null,
      sha256: mediaSha(content),
    })
    return true
  }

  /** Sends a valid text through the API (it must succeed) and records it. */
  async sendChecked(mark: Mark, number: string, text: string): Promise<void> {
    const response = await fetch(`${this.f.t.base}/send_message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        access_token: TEST_TOKEN,
        instance_id: this.f.id,
        number,
        type: 'text',
        message: text,
      }),
    })
    const body = checkAnswer('send_message', response.status, await response.text())
    assert.equal(response.status, 200, `sending ${text}: ${JSON.stringify(body)}`)
    this.accepted(mark, this.f.id, undefined, body)
  }

  /**
   * Waits for the fresh sends to arrive, then for a barrier message to the group, and checks that since the
   * mark each contact received exactly the fresh messages addressed to it (once, with the content answered)
   * and the event log holds exactly one message.sent per fresh message. The instance must be connected.
   */
  async settle(mark: Mark): Promise<void> {
    const control = this.f.t.core.sandbox!.control
    this.barriers += 1
    await this.sendChecked(mark, this.f.groupId, `barrier ${this.barriers}`)
    const since = (phone: string) => control.inbox(phone).slice(mark.inbox[phone])
    for (const phone of CONTACTS) {
      const expected = mark.fresh.filter((send) => send.recipients.includes(phone))
      const ids = new Set(expected.map((send) => send.id))
      const entries = await eventually(
        () => since(phone),
        (got) => expected.every((send) => got.some((entry) => entry.id === send.id)),
        `what ${phone} received`,
      )
      const stray = entries.filter((entry) => !ids.has(entry.id))
      assert.deepEqual(stray, [], `${phone} received only accepted sends`)
      for (const send of expected) {
        const copies = entries.filter((entry) => entry.id === send.id)
        assert.equal(copies.length, 1, `${phone} received ${send.id} once`)
        if (send.text !== null) assert.equal(copies[0]!.text, send.text, `text of ${send.id}`)
        if (send.sha256 !== null) assert.equal(copies[0]!.sha256, send.sha256, `media of ${send.id}`)
      }
    }
    const logged = (await this.sentEventsAfter(mark.cursor)).sort()
    assert.deepEqual(logged, mark.fresh.map((send) => send.id).sort(), 'one message.sent per accepted send')
  }

  /** Ids of the message.sent events logged after `cursor`, read through the events operation. */
  private async sentEventsAfter(cursor: string | undefined): Promise<string[]> {
    const ids: string[] = []
    let next = cursor
    for (;;) {
      const page = await apiCall(this.f, 'events', {
        event: 'message.sent',
        order: 'asc',
        limit: 500,
        ...(next ? { cursor: next } : {}),
      })
      assert.equal(page.status, 200, JSON.stringify(page.body))
      for (const event of page.body.events) {
        assert.equal(event.data.source, 'api', `message.sent ${event.data.id} comes from the API`)
        ids.push(event.data.id)
      }
      if (!page.body.next_cursor) return ids
      next = page.body.next_cursor
    }
  }

  private recipientsOf(chat: string): string[] {
    if (chat === this.f.groupId) return [...CONTACTS]
    return CONTACTS.filter((phone) => chat === `${phone}@s.whatsapp.net` || chat === this.f.lids[phone])
  }
}

async function apiCall(
  f: Fixture,
  name: string,
  params: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${f.t.base}/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
    body: JSON.stringify(params),
  })
  return { status: response.status, body: checkAnswer(name, response.status, await response.text()) }
}

/** Replaces the placeholders by what they stand for now. */
function resolve(f: Fixture, value: unknown): unknown {
  switch (value) {
    case CURRENT:
      return f.id
    case DESTROYED:
      return f.destroyed.at(-1) ?? '0123456789ABCDEF01234567'
    case HOOK_URL:
      return f.hookUrl
    case LAST_EVENT:
      return f.t.core.events.lastEventId() ?? '01JD5Q3R8M6W2V9T0K4N7XH1CZ'
    default:
      return typeof value === 'string' && value.startsWith('$file:') ? f.fileUrl(value.slice(6)) : value
  }
}

function resolveAll(f: Fixture, params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, resolve(f, value)]))
}

/** The idempotency key the server reads from a request: the parameter as it arrives, else the header. */
function keyOf(params: Record<string, unknown>, header: string | undefined, how: RequestHow) {
  const raw = params.idempotency_key
  const json = how.verb !== 'GET' && how.encoding === 'json'
  const asSent =
    raw === undefined || (json && raw === null)
      ? undefined
      : json || typeof raw === 'string'
        ? raw
        : JSON.stringify(raw)
  if (typeof asSent === 'string' && asSent !== '') return asSent
  return header ? header : undefined
}

/** What could change, that a rejected request must leave as it was. */
function snapshot(f: Fixture): string {
  const control = f.t.core.sandbox!.control
  return JSON.stringify({
    instances: f.t.core.registry.all(),
    tokens: f.t.core.tokens.list(),
    devices: control.accounts().map((account) => account.linkedDevices),
  })
}

/** Counts message.sent events as the core emits them. */
function sentCounter(f: Fixture): { sent: number } {
  const counter = { sent: 0 }
  f.t.core.events.live.subscribe((item) => {
    if (item.kind === 'event' && item.stored.envelope.event === 'message.sent') counter.sent += 1
  })
  return counter
}

/**
 * Sends one fuzzed request and checks its answer: a rejected send changes nothing and (when it is the only
 * request running) logs no message.sent; an accepted one is recorded. What contacts received is checked at
 * the next settle. Answers whether a new message left.
 */
async function fuzzedSend(
  f: Fixture,
  mark: Mark,
  spec: SendSpec,
  counter: { sent: number },
  alone: boolean,
): Promise<{ status: number; fresh: boolean }> {
  const params = resolveAll(f, spec.params)
  const { url, init } = buildRequest(f.t.base, spec.path, params, spec.how, f.t.core.ui.value)
  if (spec.header !== undefined) init.headers['idempotency-key'] = spec.header
  // In a cluster the stream follows the shared log: what earlier sends emitted is counted first.
  if (alone) await f.t.core.events.published()
  const before = { state: snapshot(f), sent: counter.sent }
  const response = await fetch(url, init)
  const what = `${spec.how.verb} ${spec.path}`
  const body = checkAnswer(what, response.status, await response.text())
  if (response.status === 200) {
    assert.ok(body.message?.key, `${what} answers the sent message`)
    const key = keyOf(params, spec.header, spec.how)
    return { status: 200, fresh: f.ledger.accepted(mark, String(params.instance_id), key, body) }
  }
  assert.equal(snapshot(f), before.state, `a rejected ${what} (${body.code}) changed nothing`)
  if (alone) {
    await f.t.core.events.published()
    assert.equal(counter.sent, before.sent, `a rejected ${what} (${body.code}) logged no message.sent`)
  }
  return { status: response.status, fresh: false }
}

// ---- Arbitraries ----

/** `arbitrary` about once in `every` draws, else absent. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary })
}

/** Mostly a well-formed request (the interesting paths are past validation), sometimes anything. */
const requestHow: fc.Arbitrary<RequestHow> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      verb: fc.constantFrom('POST', 'GET'),
      encoding: fc.constantFrom('json', 'json', 'form', 'query'),
      credential: fc.constantFrom('body', 'bearer', 'query', 'operator'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ verb, encoding, credential }) },
)

function wellFormed(how: RequestHow): boolean {
  const carried =
    how.verb === 'GET' || (how.verb === 'POST' && ['json', 'form', 'query'].includes(how.encoding))
  return carried && ['body', 'bearer', 'query', 'operator'].includes(how.credential)
}

const instanceTarget = fc.oneof(
  { weight: 14, arbitrary: fc.constant(CURRENT) },
  { weight: 1, arbitrary: fc.constant(DESTROYED) },
  { weight: 1, arbitrary: weirdValue },
)

function sendSpecs(f: Fixture): fc.Arbitrary<SendSpec> {
  const number = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(
        ALICE,
        `+${ALICE}`,
        '+1 (555) 050-0002',
        '1-555-050-0002',
        ` ${ALICE} `,
        `${ALICE}@s.whatsapp.net`,
        `${ALICE}@c.us`,
        `${ALICE}:7@s.whatsapp.net`,
        f.lids[ALICE] as string,
        BOB,
        `${BOB}@s.whatsapp.net`,
        f.lids[BOB] as string,
        f.groupId,
      ),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        NOBODY,
        `${NOBODY}@s.whatsapp.net`,
        f.foreignGroupId,
        '120363000000000001@g.us',
        '12345',
        'abc@g.us',
        'x@lid',
        `${ALICE}@example.com`,
        `${f.groupId}x`,
      ),
    },
    // Accepted, but for no contact: the account's own number, and a LID nobody has (chat ids go as given).
    { weight: 1, arbitrary: fc.constantFrom(ME, '99999999@lid') },
    { weight: 2, arbitrary: weirdValue },
  )
  const message = fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(2000), 'x'.repeat(2001), ' ', '\n') },
    { weight: 1, arbitrary: weirdValue },
  )
  const mediaUrl = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('$file:/photo.png', '$file:/report.pdf') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '$file:/page.html',
        '$file:/missing.png',
        '$file:/huge.bin',
        'http://127.0.0.1:1/a.png',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('ftp://x/a.png', 'not a url', 'file:///etc/passwd') },
    { weight: 1, arbitrary: weirdValue },
  )
  const filename = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('scan.png', 'report final.pdf', 'ünïcödé.bin') },
    { weight: 1, arbitrary: fc.constantFrom('../x', 'a/b', 'a\\b', 'bad\u0001name', 'n'.repeat(256)) },
    { weight: 1, arbitrary: weirdValue },
  )
  const content = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        type: fc.constant('text'),
        message,
        media_url: sometimes(mediaUrl, 10),
        filename: sometimes(filename, 10),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        type: fc.constant('media'),
        message: sometimes(message, 2),
        media_url: fc.oneof(
          { weight: 9, arbitrary: mediaUrl },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        filename: sometimes(filename, 3),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: sometimes(fc.oneof(fc.constantFrom('text', 'media', 'sticker'), weirdValue), 3),
        message: sometimes(weirdValue, 2),
        media_url: sometimes(weirdValue, 3),
        filename: sometimes(weirdValue, 3),
      }),
    },
  )
  const idempotencyKey = sometimes(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('key-1', 'key-2', 'key-3') },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.constant('k'.repeat(201)) },
      { weight: 1, arbitrary: weirdValue },
    ),
    3,
  )
  return fc.record({
    path: fc.constantFrom('/send_message', '/send', '/send_group'),
    params: fc
      .record({
        instance_id: instanceTarget,
        number,
        content,
        key: idempotencyKey,
      })
      .map(({ content, key, ...rest }) => ({ ...rest, ...content, idempotency_key: key })),
    header: sometimes(fc.constantFrom('key-1', 'header-1', 'header-2', 'h'.repeat(201)), 7),
    how: requestHow,
  })
}

type Step =
  | { kind: 'send'; spec: SendSpec }
  | { kind: 'call'; name: string; params: Record<string, unknown>; how: RequestHow }
  | { kind: 'scan' }
  | { kind: 'drop' }
  | { kind: 'unlink' }

function steps(f: Fixture): fc.Arbitrary<Step> {
  const call = (names: string[], params: Record<string, fc.Arbitrary<unknown>> = {}) =>
    fc.record({
      kind: fc.constant('call' as const),
      name: fc.constantFrom(...names),
      params: fc.record(params),
      how: requestHow,
    })
  const target = { instance_id: instanceTarget }
  const optionalTarget = { instance_id: sometimes(instanceTarget, 2) }
  const limit = sometimes(fc.integer({ min: -1, max: 600 }), 2)
  return fc.oneof(
    { weight: 6, arbitrary: sendSpecs(f).map((spec) => ({ kind: 'send' as const, spec })) },
    { weight: 2, arbitrary: call(['get_qrcode', 'generate_qrcode'], target) },
    {
      weight: 1,
      arbitrary: call(['pairing_code'], {
        ...target,
        phone: fc.oneof(fc.constantFrom(ME, '+1 555 050 0001', '123', ''), weirdValue),
      }),
    },
    { weight: 2, arbitrary: call(['reconnect'], target) },
    { weight: 1, arbitrary: call(['reinitialize', 'reboot'], target) },
    { weight: 1, arbitrary: call(['destroy', 'reset_instance'], target) },
    {
      weight: 3,
      arbitrary: call(
        [
          'instance',
          'instances',
          'get_webhook',
          'rotate_webhook_secret',
          'send_test_event',
          'redeliver_failed',
        ],
        target,
      ),
    },
    {
      weight: 2,
      arbitrary: call(['events'], {
        ...optionalTarget,
        event: sometimes(fc.constantFrom('message.sent', 'connection.update', 'qr.update', 'nope'), 2),
        order: sometimes(fc.constantFrom('asc', 'desc', 'sideways'), 2),
        cursor: sometimes(fc.constantFrom(LAST_EVENT, 'not-a-cursor'), 3),
        limit,
      }),
    },
    {
      weight: 1,
      arbitrary: call(['deliveries'], {
        ...optionalTarget,
        outcome: sometimes(fc.constantFrom('delivered', 'retrying', 'failed', 'lost'), 2),
        event_id: sometimes(fc.constantFrom(LAST_EVENT, 'x'), 3),
        limit,
      }),
    },
    {
      weight: 2,
      arbitrary: call(['set_webhook'], {
        ...target,
        webhook_url: fc.oneof(
          { weight: 3, arbitrary: fc.constant(HOOK_URL) },
          { weight: 1, arbitrary: fc.constantFrom('http://127.0.0.1:1/dead', 'ftp://x') },
          { weight: 1, arbitrary: weirdValue },
        ),
        enable: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(true, false, 'true', 'false') },
          { weight: 1, arbitrary: weirdValue },
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: call(['redeliver'], {
        ...target,
        event_id: fc.oneof(
          { weight: 3, arbitrary: fc.constant(LAST_EVENT) },
          { weight: 1, arbitrary: weirdValue },
        ),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: 'scan' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'unlink' as const }) },
  )
}

// ---- Steps of a sequence ----

/** Resolves at the next status of the instance that passes `check` (registered now, before the cause). */
function nextStatus(f: Fixture, check: (status: InstanceStatus) => boolean, what: string): Promise<void> {
  const id = f.id
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe()
      reject(new Error(`${id}: no ${what} (now ${JSON.stringify(f.t.core.instances.status(id))})`))
    }, 10_000)
    const unsubscribe = f.t.core.instances.onStatus((changed, status) => {
      if (changed !== id || !check(status)) return
      clearTimeout(timer)
      unsubscribe()
      resolve()
    })
  })
}

/** The phone scans a new QR code of the (unlinked) instance; resolves once it is connected. */
async function relink(f: Fixture): Promise<void> {
  const qr = await apiCall(f, 'get_qrcode', { instance_id: f.id })
  assert.equal(qr.status, 200, `a QR code for an unlinked instance: ${JSON.stringify(qr.body)}`)
  const linked = await apiCall(f, 'sandbox/link', { qr: decodeQr(qr.body.base64), phone: ME, name: 'Me' })
  assert.equal(linked.status, 200, JSON.stringify(linked.body))
  await waitForStatus(f.t.core, f.id, (s) => s.state === 'connected', 'connection after the scan')
  f.linked = true
}

/** Checks a call's answer against what the instance's state makes certain, and follows the changes it makes. */
function followCall(
  f: Fixture,
  step: Extract<Step, { kind: 'call' }>,
  sentTo: unknown,
  answer: any,
  status: number,
) {
  const onCurrent = sentTo === f.id
  const certain = onCurrent && wellFormed(step.how)
  const what = `${step.name} on a ${f.linked ? 'linked' : 'unlinked'} instance`
  // Past the checks of the request itself (400, 431), a destroyed id is unknown; events and deliveries
  // still filter by it.
  const takesId = step.name !== 'instances'
  const readable = wellFormed(step.how) && status !== 400 && status !== 431
  if (takesId && f.destroyed.includes(sentTo as string) && readable) {
    const expected = ['events', 'deliveries'].includes(step.name) ? 'success' : 'instance_not_found'
    assert.equal(answer.code ?? answer.status, expected, `${step.name} on a destroyed instance`)
  }
  switch (step.name) {
    case 'get_qrcode':
    case 'generate_qrcode':
      if (certain && f.linked) assert.equal(answer.code, 'already_linked', what)
      if (certain && !f.linked) assert.match(answer.base64, /^data:image\/png;base64,/, what)
      break
    case 'reconnect':
      if (certain) assert.equal(status, f.linked ? 200 : 409, `${what}: ${JSON.stringify(answer)}`)
      if (status === 200) assert.equal(f.t.core.instances.status(f.id).state, 'connected', what)
      break
    case 'pairing_code':
      if (onCurrent && f.linked) assert.notEqual(status, 200, what)
      break
    case 'reinitialize':
    case 'reboot':
      if (certain) assert.equal(status, 200, `${what}: ${JSON.stringify(answer)}`)
      if (onCurrent && status === 200) f.linked = false
      break
    case 'destroy':
    case 'reset_instance':
      if (certain) assert.equal(status, 200, `${what}: ${JSON.stringify(answer)}`)
      if (onCurrent && status === 200) {
        f.destroyed.push(f.id)
        f.id = answer.instance_id
        f.linked = false
      }
      break
    case 'instance':
      if (certain) {
        assert.equal(answer.instance.instance_id, f.id)
        assert.equal(answer.instance.linked, f.linked, what)
        if (f.linked) assert.equal(answer.instance.account?.number, ME, what)
      }
      break
  }
}

async function runStep(f: Fixture, step: Step, mark: Mark, counter: { sent: number }): Promise<void> {
  const control = `${f.t.base}/sandbox/accounts/${ME}`
  switch (step.kind) {
    case 'send': {
      const { status, fresh } = await fuzzedSend(f, mark, step.spec, counter, true)
      if (status === 200 && !f.linked) assert.ok(!fresh, 'an unlinked instance sent nothing new')
      return
    }
    case 'call': {
      const params = resolveAll(f, step.params)
      const before = snapshot(f)
      const { url, init } = buildRequest(f.t.base, `/${step.name}`, params, step.how, f.t.core.ui.value)
      const response = await fetch(url, init)
      const answer = checkAnswer(`${step.how.verb} ${step.name}`, response.status, await response.text())
      if (response.status >= 400)
        assert.equal(snapshot(f), before, `a rejected ${step.name} (${answer.code}) changed nothing`)
      followCall(f, step, params.instance_id, answer, response.status)
      return
    }
    case 'scan':
      if (f.linked) {
        const again = await apiCall(f, 'get_qrcode', { instance_id: f.id })
        assert.equal(again.body.code, 'already_linked')
      } else {
        await relink(f)
      }
      return
    case 'drop': {
      // Waits until the instance saw the cut: a send racing it may leave before the socket noticed and then
      // never be acknowledged, which is the documented 504 (it may still arrive), not what this fuzz is for.
      const wasConnected = f.t.core.instances.status(f.id).state === 'connected'
      const left = wasConnected ? nextStatus(f, (s) => s.state !== 'connected', 'disconnect') : undefined
      const dropped = await fetch(`${control}/drop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}` },
        body: JSON.stringify({ mode: 'close' }),
      })
      assert.equal(dropped.status, 200)
      await left
      return
    }
    case 'unlink': {
      const unlinked = await fetch(`${control}/unlink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      })
      assert.equal(unlinked.status, 200)
      if (f.linked) {
        await waitForStatus(f.t.core, f.id, (s) => !s.linked, 'logout by the phone', 10_000)
        f.linked = false
      }
      return
    }
  }
}

/** The instance is as the steps left it: linked or not, and never connected without a link. */
function assertConsistent(f: Fixture, after: string): void {
  const status = f.t.core.instances.status(f.id)
  assert.equal(status.linked, f.linked, `linked after ${after}: ${JSON.stringify(status)}`)
  if (status.state === 'connected') assert.equal(status.account?.number, ME, `account after ${after}`)
  for (const old of f.destroyed)
    assert.equal(f.t.core.registry.find(old), undefined, 'destroyed ids stay gone')
}

/** Brings the instance back to connected (reconnect, or a new scan when unlinked) and checks its views. */
async function backToConnected(f: Fixture): Promise<void> {
  if (f.linked) {
    const reconnected = await apiCall(f, 'reconnect', { instance_id: f.id })
    assert.equal(reconnected.status, 200, `reconnect: ${JSON.stringify(reconnected.body)}`)
    assert.equal(reconnected.body.data.id.split(':')[0], ME)
  } else {
    await relink(f)
  }
  const view = (await apiCall(f, 'instance', { instance_id: f.id })).body.instance
  assert.equal(view.state, 'connected')
  assert.equal(view.linked, true)
  assert.equal(view.account.number, ME)
  const listed = (await apiCall(f, 'instances', {})).body.instances.map((i: any) => i.instance_id)
  assert.deepEqual(listed, [f.id], 'the token lists its one instance, under its current id')
}

// ---- Properties ----

test('random send requests to a linked instance: an accepted send arrives once, a rejected one sends nothing', async () => {
  const f = await startLinked()
  const counter = sentCounter(f)
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(sendSpecs(f), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (specs, together) => {
          const mark = f.ledger.begin()
          if (together) {
            // Every request settles before a failure is reported, so none is cut off by the shutdown.
            const answers = await Promise.allSettled(
              specs.map((spec) => fuzzedSend(f, mark, spec, counter, false)),
            )
            for (const answer of answers) if (answer.status === 'rejected') throw answer.reason
          } else {
            for (const spec of specs) await fuzzedSend(f, mark, spec, counter, true)
          }
          assertConsistent(f, 'sends')
          await f.ledger.settle(mark)
        },
      ),
      { ...fuzzOptions(40, 2), endOnFailure: true },
    )
    assert.equal(f.t.core.instances.status(f.id).state, 'connected', 'sends never disconnect the instance')
  } finally {
    await f.close()
  }
})

test('random orders of send and instance operations on a linked instance: no 5xx, nothing stray sent, consistent after', async () => {
  const f = await startLinked()
  const counter = sentCounter(f)
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(steps(f), { minLength: 2, maxLength: 10 }), async (sequence) => {
        const mark = f.ledger.begin()
        for (const step of sequence) {
          await runStep(f, step, mark, counter)
          assertConsistent(f, JSON.stringify(step).slice(0, 200))
        }
        await backToConnected(f)
        await f.ledger.settle(mark)
      }),
      { ...fuzzOptions(12, 8), endOnFailure: true },
    )
  } finally {
    await f.close()
  }
})
