import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { decodeQr } from '../../bench/harness/app'
import { startNode, type Started } from '../../bench/harness/processes'
import { type OutsideSandbox, startSandbox } from '../../bench/harness/sandbox'
import { eventIdsByMessage, WebhookReceiver } from '../core/testing/webhook-receiver'
import { postgresMissing, type PostgresServer, startPostgres } from '../core/testing/postgres-server'

// Three `serve` nodes share one PostgreSQL and an outside sandbox; instances are linked through different
// nodes. Then a node is killed with SIGKILL during incoming traffic, another is paused past its lease and
// resumed, and all are restarted one by one: every incoming message reaches the webhook under one event id,
// every instance is connected again, and any node answers for any instance.
const TOKEN = 'cluster-test-token'
const TTL_MS = 3_000
const INSTANCES = Number(process.env.LINKDESK_CLUSTER_INSTANCES ?? 30)
const ALICE = '15550900001'
const phoneOf = (n: number) => `1555091${String(n).padStart(4, '0')}`

interface Node {
  id: string
  dataDir: string
  app?: Started
}

interface Answer {
  status: number
  body: Record<string, any>
  node: string | null
}

describe('a cluster of three nodes on one PostgreSQL', { skip: postgresMissing(), timeout: 900_000 }, () => {
  let server: PostgresServer
  let databaseUrl: string
  let db: pg.Pool
  let sandbox: OutsideSandbox
  let receiver: WebhookReceiver
  const nodes: Node[] = ['node-a', 'node-b', 'node-c'].map((id) => ({
    id,
    dataDir: mkdtempSync(join(tmpdir(), `linkdesk-${id}-`)),
  }))
  /** instance id → the account's phone */
  const accounts = new Map<string, string>()
  /** Message ids the contact sent to the accounts. */
  const sent: string[] = []
  /** message id → the account it was sent to */
  const sentTo = new Map<string, string>()

  const start = async (node: Node) => {
    node.app = await startNode(
      node.id,
      [
        'electron/headless/serve.ts',
        ...['--sandbox-url', sandbox.controlUrl, '--port', '0', '--data-dir', node.dataDir],
        // Each node's connections carry its id, so the write log below tells whose write a row is.
        ...['--store', `${databaseUrl}?application_name=${node.id}`, '--node-id', node.id],
        ...['--lease-ttl-ms', String(TTL_MS)],
        // The steps below poll the API hard from one token (draining, racing a takeover): not a test of its limit.
        ...['--send-interval-ms', '0', '--requests-per-minute', '100000', '--log-level', 'warn'],
      ],
      { waitFor: ['api'], env: { LINKDESK_ACCESS_TOKEN: TOKEN }, timeoutMs: 90_000 },
    )
  }
  /** PostgreSQL's clock now, ms. */
  const dbNow = async () =>
    Number(
      (
        await db.query<{ ms: string }>(
          `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS ms`,
        )
      ).rows[0]!.ms,
    )
  /**
   * From now on every row written to an instance's tables (and every upload) is logged with the node whose
   * connection wrote it (its application_name) and when, on PostgreSQL's clock.
   */
  const logWrites = async () => {
    const tables: Array<[string, string]> = [
      ['events', 'instance_id'],
      ['event_messages', 'instance_id'],
      ['webhook_outbox', 'queue'],
      ['delivery_attempts', 'instance_id'],
      ['messages', 'instance_id'],
      ['message_statuses', 'instance_id'],
      ['message_media', 'instance_id'],
      ['auth_entries', 'instance_id'],
      ['send_idempotency', 'instance_id'],
      ['poll_votes', 'instance_id'],
      ['instances', 'id'],
      ['uploads', 'id'],
    ]
    await db.query(`
      CREATE TABLE IF NOT EXISTS test_write_log (app text, tbl text, instance text, at timestamptz);
      CREATE OR REPLACE FUNCTION test_log_write() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        affected jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN affected := to_jsonb(OLD); ELSE affected := to_jsonb(NEW); END IF;
        INSERT INTO test_write_log VALUES
          (current_setting('application_name'), TG_TABLE_NAME, affected->>TG_ARGV[0], clock_timestamp());
        RETURN NULL;
      END $$;
      ${tables
        .map(
          ([table, column]) => `DROP TRIGGER IF EXISTS test_log_write ON ${table};
          CREATE TRIGGER test_log_write AFTER INSERT OR UPDATE OR DELETE ON ${table}
            FOR EACH ROW EXECUTE FUNCTION test_log_write('${column}');`,
        )
        .join('\n')}`)
  }
  const api = (node: Node) => node.app!.values.get('api')!
  const call = async (node: Node, name: string, params: Record<string, unknown> = {}): Promise<Answer> => {
    const response = await fetch(`${api(node)}/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(params),
    })
    return {
      status: response.status,
      body: (await response.json()) as Record<string, any>,
      node: response.headers.get('x-linkdesk-node'),
    }
  }
  const ok = async (node: Node, name: string, params: Record<string, unknown> = {}) => {
    const answer = await call(node, name, params)
    assert.equal(answer.status, 200, `${name} on ${node.id}: ${JSON.stringify(answer.body)}`)
    return answer
  }
  /** Live owners: instance id → node id. */
  const owners = async () => {
    const { rows } = await db.query<{ instance_id: string; node_id: string }>(
      `SELECT o.instance_id, o.node_id FROM instance_owner o JOIN nodes n ON n.id = o.node_id
       WHERE n.expires_at > now()`,
    )
    return new Map(rows.map(({ instance_id: instanceId, node_id: nodeId }) => [instanceId, nodeId]))
  }
  const running = () => nodes.filter((node) => node.app && node.app.child.exitCode === null)
  /** Waits until every instance is connected, asking each through a running node (any node answers). */
  const allConnected = async (withinMs: number, what: string) => {
    const deadline = Date.now() + withinMs
    let waiting: string[] = []
    while (Date.now() < deadline) {
      const live = running()
      waiting = []
      for (const [index, instanceId] of [...accounts.keys()].entries()) {
        const via = live[index % live.length]!
        const answer = await call(via, 'instance', { instance_id: instanceId })
        if (answer.body.instance?.state !== 'connected')
          waiting.push(
            `${instanceId} via ${via.id} on ${answer.node}: ${answer.body.instance?.state ?? answer.body.code} ${answer.body.instance?.cause ?? answer.body.message}`,
          )
      }
      if (waiting.length === 0) return
      await sleep(250)
    }
    assert.fail(
      `${what}: ${waiting.length} instances not connected within ${withinMs} ms: ${waiting.join('; ')}`,
    )
  }
  /** The contact writes to every account, one message every `gapMs`, until `stop` resolves. */
  const traffic = (stop: Promise<unknown>, gapMs = 60) => {
    let done = false
    void stop.then(() => (done = true))
    return (async () => {
      const phones = [...accounts.values()]
      for (let n = 0; !done; n++) {
        const phone = phones[n % phones.length]!
        const id = await sandbox.send(ALICE, phone, `cluster ${sent.length}`)
        sent.push(id)
        sentTo.set(id, phone)
        await sleep(gapMs)
      }
    })()
  }
  const eventsByMessage = () => eventIdsByMessage(receiver)
  /** Every message sent so far reaches the webhook, each under exactly one event id. */
  /** Where missing messages are: their event (and outbox entry) stored or not, and their account's owner now. */
  const whereAre = async (missing: string[]) => {
    const { rows } = await db.query<{ message_id: string; event_id: string; queued: boolean }>(
      `SELECT m.message_id, m.event_id,
              EXISTS (SELECT 1 FROM webhook_outbox w WHERE w.entry->>'eventId' = m.event_id) AS queued
       FROM event_messages m WHERE m.message_id = ANY($1)`,
      [missing],
    )
    const stored = new Map(rows.map((row) => [row.message_id, row]))
    const held = await owners()
    const instanceOf = new Map([...accounts].map(([id, phone]) => [phone, id]))
    return missing
      .map((id) => {
        const instanceId = instanceOf.get(sentTo.get(id) ?? '') ?? '?'
        const row = stored.get(id)
        const state = row ? `event ${row.event_id}${row.queued ? ', queued' : ', not queued'}` : 'no event'
        return `${id} to ${instanceId} (held by ${held.get(instanceId)}): ${state}`
      })
      .join('; ')
  }
  const everyMessageOnce = async () => {
    await receiver
      .until(() => sent.every((id) => eventsByMessage().has(id)), 90_000)
      .catch(async () => {
        const missing = sent.filter((id) => !eventsByMessage().has(id))
        assert.fail(
          `${missing.length} of ${sent.length} messages never reached the webhook: ${await whereAre(missing)}`,
        )
      })
    for (const [id, eventIds] of eventsByMessage())
      assert.equal(eventIds.size, 1, `message ${id} reached the webhook under ${eventIds.size} event ids`)
  }

  before(async () => {
    server = await startPostgres()
    databaseUrl = await server.createDatabase()
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 })
    sandbox = await startSandbox()
    receiver = await WebhookReceiver.start()
    await sandbox.addContact(ALICE, 'Alice')
    for (const node of nodes) await start(node)
  })
  after(async () => {
    for (const node of nodes) {
      node.app?.child.kill('SIGCONT')
      await node.app?.stop()
      rmSync(node.dataDir, { recursive: true, force: true })
    }
    await sandbox?.stop()
    await receiver?.close()
    await db?.end()
    server?.stop()
  })

  test(`${INSTANCES} instances linked through different nodes spread over all three`, async () => {
    for (let n = 0; n < INSTANCES; n++) {
      const node = nodes[n % nodes.length]!
      const { body } = await ok(node, 'create_instance')
      const instanceId = String(body.instance_id)
      const qr = await ok(node, 'generate_qrcode', { instance_id: instanceId })
      await sandbox.link(decodeQr(String(qr.body.base64)), phoneOf(n))
      await ok(node, 'set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })
      accounts.set(instanceId, phoneOf(n))
    }
    await allConnected(60_000, 'after linking')
    const held = await owners()
    assert.equal(held.size, INSTANCES, 'every instance has one live owner')
    for (const node of nodes) {
      const count = [...held.values()].filter((owner) => owner === node.id).length
      assert.ok(count >= INSTANCES / nodes.length - 1, `${node.id} holds ${count} of ${INSTANCES}`)
    }
  })

  test('a request to a node that does not own the instance is answered by its owner', async () => {
    const held = await owners()
    const [instanceId, owner] = [...held][0]!
    const other = nodes.find((node) => node.id !== owner)!
    const status = await ok(other, 'instance', { instance_id: instanceId })
    assert.equal(status.node, owner, 'the owner ran it')
    assert.equal(status.body.instance.state, 'connected')
    const text = `through ${other.id} to ${owner}`
    const answer = await ok(other, 'send_message', {
      instance_id: instanceId,
      number: ALICE,
      type: 'text',
      message: text,
    })
    assert.equal(answer.body.status, 'success')
    const inbox = await fetch(`${sandbox.controlUrl}/accounts/${ALICE}/messages`).then(
      (response) => response.json() as Promise<{ messages: Array<{ text: string | null; from: string }> }>,
    )
    const received = inbox.messages.find((message) => message.text === text)
    assert.ok(received, 'the contact has the message')
    assert.equal(received.from, accounts.get(instanceId))
    // The live stream of any node carries every node's events: a message to this instance (run by its owner)
    // shows on the other node's stream.
    const stream = new AbortController()
    const response = await fetch(`${api(other)}/stream`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: stream.signal,
    })
    assert.equal(response.status, 200)
    let frames = ''
    const reading = (async () => {
      const decoder = new TextDecoder()
      const reader = response.body!.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        frames += decoder.decode(value, { stream: true })
      }
    })().catch(() => undefined)
    const messageId = await sandbox.send(ALICE, accounts.get(instanceId)!, 'seen on every node')
    const deadline = Date.now() + 15_000
    while (!frames.includes(`"id":"${messageId}"`)) {
      assert.ok(Date.now() < deadline, `the stream of ${other.id} carried the message received on ${owner}`)
      await sleep(50)
    }
    stream.abort()
    await reading
    sent.push(messageId)
    // A script's own token is checked by the node it calls: another token's instance stays unknown.
    const stranger = await fetch(`${api(other)}/instance?instance_id=${instanceId}`, {
      headers: { authorization: 'Bearer not-a-token-of-this-cluster' },
    })
    assert.equal(stranger.status, 401)
  })

  test('kill -9 of a node during incoming traffic: its instances reconnect on the others, nothing lost', async (t) => {
    const victim = nodes[2]!
    let stopTraffic!: () => void
    const sending = traffic(new Promise<void>((resolve) => (stopTraffic = resolve)))
    await sleep(1_500)
    const exited = new Promise((resolve) => victim.app!.child.once('exit', resolve))
    victim.app!.child.kill('SIGKILL')
    await exited
    const killedAt = Date.now()
    victim.app = undefined
    await allConnected(TTL_MS + 10_000, 'after the kill')
    const failoverMs = Date.now() - killedAt
    const held = await owners()
    assert.ok(![...held.values()].includes(victim.id), 'nothing is held by the dead node')
    assert.equal(held.size, INSTANCES)
    await sleep(1_000)
    stopTraffic()
    await sending
    await everyMessageOnce()
    t.diagnostic(`failover after kill -9: every instance connected again ${failoverMs} ms after the kill`)
  })

  test('the node back after the failover fills up again, each peer handing over its excess over a fair share', async (t) => {
    const returned = nodes[2]!
    await start(returned)
    const { rows: joined } = await db.query<{ started: string }>(
      `SELECT (extract(epoch FROM started_at) * 1000)::bigint::text AS started FROM nodes WHERE id = $1`,
      [returned.id],
    )
    const joinedAt = Number(joined[0]!.started)
    const loads = async () => {
      const held = await owners()
      return nodes.map((node) => [...held.values()].filter((owner) => owner === node.id).length)
    }
    // Balanced: no node holds more than 2 instances over another (the rebalancing's gap).
    const deadline = Date.now() + 120_000
    let now = await loads()
    while (Math.max(...now) - Math.min(...now) > 2) {
      assert.ok(Date.now() < deadline, `the returned node filled up (loads ${now.join('/')})`)
      await sleep(100)
      now = await loads()
    }
    const filledMs = Date.now() - joinedAt
    const moved = now[2]!
    assert.ok(moved >= INSTANCES / 3 - 2, `${returned.id} took a fair share over (${moved})`)
    await allConnected(TTL_MS + 10_000, 'after the rebalancing')
    t.diagnostic(
      `rebalanced to ${now.join('/')}: ${moved} instances moved in ${filledMs} ms after the node joined`,
    )
  })

  test('a node paused past its lease acts on nothing it lost once resumed', async () => {
    const paused = nodes[1]!
    const before = await owners()
    const itsInstances = [...before].filter(([, owner]) => owner === paused.id).map(([id]) => id)
    assert.ok(itsInstances.length > 0, 'the paused node held instances')
    const tokens = async () =>
      (
        await db.query<{ instance_id: string; node_id: string; token: string }>(
          'SELECT instance_id, node_id, token FROM instance_owner WHERE instance_id = ANY($1) ORDER BY instance_id',
          [itsInstances],
        )
      ).rows
    await logWrites()
    const pausedAt = Date.now()
    paused.app!.child.kill('SIGSTOP')
    let takenOver: Awaited<ReturnType<typeof tokens>> = []
    let stopTraffic!: () => void
    const sending = traffic(new Promise<void>((resolve) => (stopTraffic = resolve)))
    let resumedAt = 0
    let resumedOnDb = 0
    try {
      // Its peers take its instances over once its lease expires.
      const deadline = Date.now() + TTL_MS + 10_000
      for (;;) {
        const now = await owners()
        if (itsInstances.every((id) => now.has(id) && now.get(id) !== paused.id)) break
        assert.ok(Date.now() < deadline, 'the paused node’s instances were taken over')
        await sleep(200)
      }
      takenOver = await tokens()
      await sleep(2_000)
    } finally {
      resumedAt = Date.now()
      resumedOnDb = await dbNow()
      paused.app!.child.kill('SIGCONT')
    }
    // Resumed, it finds its lease expired, stops what it held and joins again as a fresh node.
    await sleep(TTL_MS)
    const health = await ok(paused, 'health')
    assert.equal(health.body.cluster.node_id, paused.id)
    assert.equal(health.body.cluster.lease_alive, true)
    const { rows: joined } = await db.query<{ started: string }>(
      `SELECT (extract(epoch FROM started_at) * 1000)::bigint::text AS started FROM nodes WHERE id = $1`,
      [paused.id],
    )
    const rejoinedAt = Number(joined[0]!.started)
    assert.ok(rejoinedAt >= resumedAt - 1_000, 'it joined again after the resume')
    // Until then it posted nothing for the instances it lost; an instance handed back to it since (the
    // cluster rebalances towards the emptied node) came under a newer token than the one it lost.
    const lostToken = new Map(takenOver.map(({ instance_id: id, token }) => [id, Number(token)]))
    const stale = receiver.received.filter(
      ({ headers, event, at }) =>
        headers['x-linkdesk-node'] === paused.id &&
        at >= resumedAt &&
        at < rejoinedAt &&
        lostToken.has(event.instance_id),
    )
    assert.deepEqual(
      stale.map(
        ({ event, at }) => `${event.event_id} of ${event.instance_id}, ${at - resumedAt} ms after SIGCONT`,
      ),
      [],
      'no POST for a lost instance before it joined again',
    )
    // Nor did it send a receipt for them: none reached the sandbox, after the resume, over a connection that
    // was up before the pause (its own; its peers connected the instances anew).
    const staleReceipts: string[] = []
    let receiptsBefore = 0
    for (const instanceId of itsInstances) {
      const { receipts } = (await fetch(
        `${sandbox.controlUrl}/accounts/${accounts.get(instanceId)!}/receipts`,
      ).then((response) => response.json())) as {
        receipts: Array<{ logged_in_at: number; at: number; type: string; ids: string[] }>
      }
      for (const { logged_in_at: since, at, type, ids } of receipts) {
        if (since < pausedAt && at < pausedAt) receiptsBefore += 1
        if (since < pausedAt && at >= resumedAt)
          staleReceipts.push(
            `${type} receipt of ${ids.join(',')} for ${instanceId}, ${at - resumedAt} ms after SIGCONT`,
          )
      }
    }
    assert.ok(receiptsBefore > 0, 'its connections’ receipts from before the pause are seen')
    assert.deepEqual(staleReceipts, [], 'no receipt for a lost instance once resumed')
    // Nor did it write anything (rows of its instances' events, messages, keys, ledger, votes, outbox, records,
    // or an upload) from the resume until it joined again: every write of it was fenced out.
    const { rows: written } = await db.query<{ tbl: string; instance: string | null; ms: string }>(
      `SELECT tbl, instance, (extract(epoch FROM at) * 1000)::bigint::text AS ms FROM test_write_log
       WHERE app = $1 AND at >= to_timestamp($2 / 1000.0) AND at < to_timestamp($3 / 1000.0) ORDER BY at`,
      [paused.id, resumedOnDb, rejoinedAt],
    )
    assert.deepEqual(
      written.map(
        ({ tbl, instance, ms }) => `${tbl} of ${instance}, ${Number(ms) - resumedOnDb} ms after SIGCONT`,
      ),
      [],
      'no write by the resumed node before it joined again',
    )
    const { rows: peersWrote } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM test_write_log WHERE app <> $1 AND instance = ANY($2) AND at >= to_timestamp($3 / 1000.0)`,
      [paused.id, itsInstances, resumedOnDb],
    )
    assert.ok(Number(peersWrote[0]!.n) > 0, 'the write log sees the new owners’ writes of those instances')
    for (const { instance_id: id, node_id: owner, token } of await tokens()) {
      if (owner === paused.id)
        assert.ok(Number(token) > lostToken.get(id)!, `${id} came back under a new token`)
    }
    await allConnected(TTL_MS + 10_000, 'after the pause')
    stopTraffic()
    await sending
    await everyMessageOnce()
  })

  test('a rolling restart of every node loses no message and waits for no lease to expire', async () => {
    let stopTraffic!: () => void
    const sending = traffic(new Promise<void>((resolve) => (stopTraffic = resolve)))
    for (const node of nodes) {
      const held = [...(await owners())].filter(([, owner]) => owner === node.id).map(([id]) => id)
      // Requests for its instances keep coming to it while it drains: it takes none of them back.
      let draining = true
      const asking = (async () => {
        while (draining) {
          await Promise.all(
            held.map((instanceId) =>
              call(node, 'instance', { instance_id: instanceId }).catch(() => undefined),
            ),
          )
        }
      })()
      await node.app!.stop(30_000)
      draining = false
      await asking
      // Drained: it released what it held (the owner rows no longer name it) before exiting.
      const { rows } = await db.query<{ instance_id: string }>(
        'SELECT instance_id FROM instance_owner WHERE node_id = $1',
        [node.id],
      )
      assert.deepEqual(rows, [], `${node.id} released its ${held.length} instances`)
      await allConnected(TTL_MS + 10_000, `after ${node.id} left`)
      await start(node)
    }
    await allConnected(TTL_MS + 10_000, 'after the rolling restart')
    stopTraffic()
    await sending
    await everyMessageOnce()
  })

  test('status requests racing a takeover: every adopted instance connects and its record stays linked', async () => {
    const held = await owners()
    const loadOf = (node: Node) => [...held.values()].filter((owner) => owner === node.id).length
    const victim = [...nodes].sort((a, b) => loadOf(b) - loadOf(a))[0]!
    const others = nodes.filter((node) => node !== victim)
    const itsInstances = [...held].filter(([, owner]) => owner === victim.id).map(([id]) => id)
    assert.ok(itsInstances.length > 0, `${victim.id} held instances`)
    // While this lock is held, a node taking an instance over waits for its credentials; requests arrive then.
    const hold = await db.connect()
    const waiting: Array<Promise<Answer>> = []
    try {
      await hold.query('BEGIN')
      await hold.query('LOCK TABLE auth_entries IN ACCESS EXCLUSIVE MODE')
      const exited = new Promise((resolve) => victim.app!.child.once('exit', resolve))
      victim.app!.child.kill('SIGKILL')
      await exited
      victim.app = undefined
      // A peer has started taking over once it owns one of them, or once it waits on the held lock (it may
      // read the credentials before it claims the instance: then it claims it only after the lock goes).
      const deadline = Date.now() + TTL_MS + 10_000
      for (;;) {
        const now = await owners()
        if (itsInstances.some((id) => now.has(id) && now.get(id) !== victim.id)) break
        const { rows } = await db.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_locks WHERE relation = 'auth_entries'::regclass AND NOT granted`,
        )
        if (Number(rows[0]!.waiting) > 0) break
        assert.ok(Date.now() < deadline, 'a peer started taking the dead node’s instances over')
        await sleep(100)
      }
      for (let round = 0; round < 10; round++) {
        for (const node of others) {
          await ok(node, 'instances')
          for (const instanceId of itsInstances)
            waiting.push(call(node, 'instance', { instance_id: instanceId }))
        }
        await sleep(100)
      }
    } finally {
      await hold.query('COMMIT')
      hold.release()
    }
    // Answered as stored once a peer holds it; before that, its owner is the dead node, and the answer says so.
    for (const answer of await Promise.all(waiting)) {
      const beforeTheClaim =
        answer.status === 503 &&
        answer.body.code === 'unavailable' &&
        answer.body.details?.node_id === victim.id
      assert.ok(
        answer.status === 200 || beforeTheClaim,
        `instance during the takeover: ${JSON.stringify(answer.body)}`,
      )
    }
    await allConnected(TTL_MS + 20_000, 'after the takeover raced by requests')
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM instances WHERE NOT (record->>'linked')::boolean ORDER BY id`,
    )
    assert.deepEqual(rows, [], 'every shared record stays linked')
    await start(victim)
  })
})
