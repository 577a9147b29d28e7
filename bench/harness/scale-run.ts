import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { decodeQr } from './app'
import { inPool } from './pool'
import { loadAverage } from './proc'
import { REPO } from './processes'
import { type NodeSample, type PgSample, ScaleCluster, type ScaleNode } from './scale-cluster'
import { percentile, sleep } from './stats'

/** The faults of a compressed day, in the order they are run. */
export const FAULTS = ['kill', 'rolling', 'postgres', 'cut', 'pause'] as const
export type Fault = (typeof FAULTS)[number]

export interface ScaleConfig {
  accounts: number
  nodes: number
  /** How long the traffic runs (the compressed day), ms. */
  durationMs: number
  /** One wave: every account receives one message and sends one within it. */
  waveMs: number
  /** The nodes' lease (`--lease-ttl-ms`). */
  ttlMs: number
  faults: Fault[]
  /** How long the returned node's refilling is watched after a kill. */
  rebalanceWatchMs: number
  /** Memory, descriptors and PostgreSQL are sampled this often; latency and losses are reported per window. */
  windowMs: number
  /** Accounts linked at once. */
  linkConcurrency: number
  /** Where the nodes' logs go. */
  logDir: string
}

/** The two profiles of `npm run bench:scale`: a compressed day of an hour, or of ten minutes. */
export function profileConfig(profile: 'long' | 'short', overrides: Partial<ScaleConfig> = {}): ScaleConfig {
  const durationMs = overrides.durationMs ?? (profile === 'long' ? 3_600_000 : 600_000)
  return {
    accounts: 1_000,
    nodes: 3,
    durationMs,
    waveMs: 60_000,
    ttlMs: 10_000,
    faults: [...FAULTS],
    rebalanceWatchMs: 120_000,
    windowMs: durationMs >= 1_800_000 ? 600_000 : Math.max(60_000, Math.round(durationMs / 5)),
    linkConcurrency: 8,
    logDir: join(REPO, 'bench', '.runs', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}`),
    ...overrides,
  }
}

/** One message of the traffic: which wave, which account, when it was sent (Unix ms). */
interface Sent {
  id: string
  wave: number
  instanceId: string
  at: number
}

interface Account {
  instanceId: string
  phone: string
  /** The sandbox contact it talks with. */
  contact: string
}

export interface WaveFigures {
  wave: number
  /** Messages the contacts sent to the accounts, lost (no message.received), duplicated (two event ids). */
  incoming: number
  incomingLost: number
  incomingDuplicated: number
  /** Sends the API acknowledged; of them, not in the contact's inbox; without or with two message.sent events. */
  sendsAcknowledged: number
  sendsRefused: number
  sendsNotDelivered: number
  sendEventsMissing: number
  sendEventsDuplicated: number
}

export interface WindowFigures {
  fromMin: number
  toMin: number
  nodes: NodeSample[]
  /** Sum over the nodes' RSS ÷ accounts, MB. */
  rssPerAccountMb: number
  p50Ms: number
  p99Ms: number
  incoming: number
  lost: number
  load: number
  pg: PgSample
}

/** What one fault measured: a line of figures per fault, and its raw numbers for the targets. */
export interface FaultFigures {
  fault: Fault
  atMin: number
  /** Free-form figures, `name → value` in the unit its name says. */
  figures: Record<string, number | string>
}

export interface ScaleReport {
  config: ScaleConfig
  startedAt: Date
  endedAt: Date
  loadAtStart: number
  loadAtEnd: number
  /** From the first create_instance to every account connected. */
  linkMs: number
  /** The accounts linked (the traffic's), of config.accounts asked for. */
  linked: number
  /** Link steps answered 503 and tried again, by step and reason. */
  linkRetries: Record<string, number>
  /** Seconds at which each tenth of the accounts was connected. */
  linkTenthsS: number[]
  spreadAfterLink: Record<string, number>
  spreadAtEnd: Record<string, number>
  /** Each node's RSS with no account, and after linking (idle). */
  fixed: NodeSample[]
  idle: NodeSample[]
  waves: WaveFigures[]
  windows: WindowFigures[]
  faults: FaultFigures[]
  latency: { p50Ms: number; p99Ms: number; maxMs: number; count: number }
  /** Over the traffic: PostgreSQL transactions and statements per message (in + out), connections at the end. */
  pgPerMessage: { transactions: number; statements: number }
  pgConnections: Record<string, number>
  /** Database growth per account per day at this traffic, and the size at the end. */
  pgBytesPerAccountDay: number
  pgSizeBytes: number
  /** Sends not acknowledged (never lost: the caller knows), by answer. */
  refusals: Record<string, number>
  timeline: string[]
}

const MB = 1024 * 1024

/**
 * The scale bench, whole: starts the cluster, links every account, runs the waves for the duration with the
 * faults on their schedule, drains, and answers every figure. Stops every process it started, also on failure.
 */
export async function runScale(config: ScaleConfig, log: (line: string) => void): Promise<ScaleReport> {
  mkdirSync(config.logDir, { recursive: true })
  const startedAt = new Date()
  const loadAtStart = loadAverage()
  const timeline: string[] = []
  let trafficStart = Date.now()
  const note = (text: string) => {
    const min = ((Date.now() - trafficStart) / 60_000).toFixed(1)
    const line = `${new Date().toISOString().slice(11, 19)} (+${min} min, load ${loadAverage().toFixed(1)}) ${text}`
    timeline.push(line)
    log(line)
  }
  note(`starting PostgreSQL, the sandbox, the receiver and ${config.nodes} nodes (logs in ${config.logDir})`)
  const cluster = await ScaleCluster.start({
    nodes: config.nodes,
    ttlMs: config.ttlMs,
    logDir: config.logDir,
  })
  try {
    return await measure(cluster, config, note, (at) => (trafficStart = at), {
      startedAt,
      loadAtStart,
      timeline,
    })
  } finally {
    await cluster.stop()
  }
}

async function measure(
  cluster: ScaleCluster,
  config: ScaleConfig,
  note: (text: string) => void,
  setTrafficStart: (at: number) => void,
  run: { startedAt: Date; loadAtStart: number; timeline: string[] },
): Promise<ScaleReport> {
  const { receiver, sandbox } = cluster
  const samples = async () =>
    (await Promise.all(cluster.nodes.map((node) => cluster.sample(node)))).filter(
      (sample): sample is NodeSample => sample !== undefined,
    )
  await sleep(10_000) // past the start's own allocations
  const fixed = await samples()
  const runTag = String(process.pid % 1000).padStart(3, '0')
  const contacts = Array.from({ length: Math.max(1, Math.ceil(config.accounts / 100)) }, (_, n) => {
    return `1556${runTag}${String(n).padStart(4, '0')}`
  })
  for (const contact of contacts) await sandbox.addContact(contact, `Contact ${contact}`)

  // Linking: each account through a node in turn (create_instance runs on the least-loaded one), its webhook set
  // before its QR is scanned, so its connection.update reaches the receiver.
  note(`linking ${config.accounts} accounts, ${config.linkConcurrency} at a time`)
  const linkStart = Date.now()
  const connectedAt: number[] = []
  const linkRetries = new Map<string, number>()
  const linkOne = async (n: number): Promise<Account> => {
    const node = cluster.live()[n % cluster.live().length]!
    const phone = `1557${runTag}${String(n).padStart(4, '0')}`
    // A 503 (a node whose lease lapsed for a moment under load, an instance changing nodes) changed nothing:
    // a client tries again, as this one does, a second later.
    const step = async (name: string, params: Record<string, unknown> = {}) => {
      for (let attempt = 1; ; attempt++) {
        const answer = await cluster.call(node, name, params, 120_000)
        if (answer.status === 200) return answer
        if (answer.status !== 503 || attempt === 10)
          throw new Error(
            `${name} on ${node.id}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
          )
        const why = `${name} ${answer.body.details?.reason ?? answer.body.code}`
        linkRetries.set(why, (linkRetries.get(why) ?? 0) + 1)
        await sleep(1_000)
      }
    }
    const created = await step('create_instance')
    const instanceId = String(created.body.instance_id)
    await step('set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })
    // A first login the node could not keep (its lease in doubt under load: the instance is back to unlinked)
    // is scanned again with a new QR code, as its user would; counted.
    // A first login the node could not keep (its lease in doubt under load: the instance is back to unlinked)
    // is scanned again with a new QR code, as its user would; counted. A linked one is waited for.
    const scannedAt = Date.now()
    for (let scan = 1, connected = false; !connected; scan++) {
      if (scan > 1) linkRetries.set('scanned again', (linkRetries.get('scanned again') ?? 0) + 1)
      const qr = await cluster.call(node, 'generate_qrcode', { instance_id: instanceId }, 120_000)
      // Linked meanwhile (the earlier login was kept after all): nothing to scan, it is waited for.
      const linkedMeanwhile = qr.status === 409 && qr.body.code === 'already_linked'
      try {
        if (!linkedMeanwhile) {
          if (qr.status !== 200) throw new Error(`generate_qrcode: ${qr.status} ${String(qr.body.code)}`)
          await sandbox.link(decodeQr(String(qr.body.base64)), phone)
        }
      } catch (error) {
        // The device did not finish the pairing in time (a loaded machine): a new QR code, scanned again.
        if (scan === 5) throw error
        const why = `link failed: ${(error as Error).message.replace(/^\S+: /, '').slice(0, 60)}`
        linkRetries.set(why, (linkRetries.get(why) ?? 0) + 1)
        continue
      }
      for (;;) {
        const [time] = await reconnected(cluster, [instanceId], linkStart, 60_000)
        connected = time !== undefined && !Number.isNaN(time)
        if (connected) break
        const answer = await cluster.call(node, 'instance', { instance_id: instanceId })
        const unlinked = answer.status === 200 && answer.body.instance?.linked === false
        if ((unlinked && scan === 3) || Date.now() - scannedAt > 900_000)
          throw new Error(
            `${instanceId} not connected after ${scan} scans: ${JSON.stringify(answer.body).slice(0, 300)}`,
          )
        if (unlinked) break
      }
    }
    connectedAt.push(Date.now())
    if (connectedAt.length % Math.max(1, Math.round(config.accounts / 10)) === 0)
      note(`${connectedAt.length} of ${config.accounts} connected`)
    return { instanceId, phone, contact: contacts[n % contacts.length]! }
  }
  // An account that could not be linked after its retries is left out of the traffic, and reported.
  const linked = await inPool(config.accounts, config.linkConcurrency, (n) =>
    linkOne(n).catch((error: unknown) => {
      note(`account ${n} not linked: ${(error as Error).message.slice(0, 300)}`)
      linkRetries.set('not linked at all', (linkRetries.get('not linked at all') ?? 0) + 1)
      return undefined
    }),
  )
  const accounts = linked.filter((account): account is Account => account !== undefined)
  const linkMs = Date.now() - linkStart
  connectedAt.sort((a, b) => a - b)
  const linkTenthsS = Array.from({ length: 10 }, (_, tenth) => {
    const index = Math.min(connectedAt.length - 1, Math.ceil(((tenth + 1) * connectedAt.length) / 10) - 1)
    return ((connectedAt[index] ?? NaN) - linkStart) / 1000
  })
  const spreadOf = async () => {
    const loads = await cluster.loads()
    return Object.fromEntries(cluster.nodes.map((node, n) => [node.id, loads[n] ?? 0]))
  }
  const spreadAfterLink = await spreadOf()
  note(
    `linked in ${(linkMs / 1000).toFixed(1)} s; spread ${JSON.stringify(spreadAfterLink)}; ` +
      `503s tried again: ${JSON.stringify(Object.fromEntries(linkRetries))}`,
  )
  await sleep(10_000)
  const idle = await samples()

  // The traffic: wave after wave, every account receives one message from its contact and sends one to it.
  const traffic = new Traffic(cluster, accounts, config.waveMs)
  const trafficStart = Date.now()
  setTrafficStart(trafficStart)
  const pgAtStart = await cluster.pgSample()
  note(`traffic: one message in and one out per account per ${config.waveMs / 1000} s`)
  const running = traffic.run(trafficStart, trafficStart + config.durationMs)

  const windows: Array<Omit<WindowFigures, 'p50Ms' | 'p99Ms' | 'incoming' | 'lost'>> = []
  let sampling = true
  const sampler = (async () => {
    for (let w = 1; sampling; w++) {
      const due = trafficStart + w * config.windowMs
      while (sampling && Date.now() < due) await sleep(Math.min(1_000, due - Date.now()))
      if (!sampling || Date.now() > trafficStart + config.durationMs + 1_000) return
      const nodes = await samples()
      const rss = nodes.reduce((sum, sample) => sum + sample.rssBytes, 0)
      windows.push({
        fromMin: ((w - 1) * config.windowMs) / 60_000,
        toMin: (w * config.windowMs) / 60_000,
        nodes,
        rssPerAccountMb: rss / MB / accounts.length,
        load: loadAverage(),
        pg: await cluster.pgSample(),
      })
      note(
        `window ${w}: RSS ${nodes.map((s) => `${s.node} ${(s.rssBytes / MB).toFixed(0)} MB`).join(', ')}; ` +
          `in ${traffic.incoming.length}, out ${traffic.outgoing.length}, received ${receiver.received.size}`,
      )
    }
  })()

  // The faults, spread from a sixth of the duration to seven tenths of it, each after the one before recovered.
  const faults: FaultFigures[] = []
  const first = config.durationMs / 6
  const gap = config.faults.length > 1 ? (config.durationMs * 0.7 - first) / (config.faults.length - 1) : 0
  for (const [n, fault] of config.faults.entries()) {
    const due = trafficStart + first + n * gap
    // Mid-wave: half a wave past the wave's start.
    const wave = Math.floor((Math.max(due, Date.now()) - trafficStart) / config.waveMs)
    const midWave = trafficStart + wave * config.waveMs + config.waveMs / 2
    await sleep(Math.max(0, midWave - Date.now()))
    const atMin = (Date.now() - trafficStart) / 60_000
    note(`fault: ${fault}`)
    // A fault the cluster did not recover from (a node that did not start again) is a finding, reported with
    // its error: the day goes on, with the stopped node started once more.
    const figures = await FAULT_RUNS[fault](cluster, accounts, config, note).catch(
      async (error: unknown): Promise<Record<string, number | string>> => {
        const failed = { error: (error as Error).message.slice(0, 500) }
        note(`fault ${fault} failed: ${failed.error}`)
        for (const node of cluster.nodes.filter((each) => !each.app))
          await cluster.startNode(node).catch((again: unknown) => {
            note(`${node.id} not started again: ${(again as Error).message.slice(0, 300)}`)
          })
        return failed
      },
    )
    note(`fault ${fault} done: ${JSON.stringify(figures)}`)
    faults.push({ fault, atMin, figures })
  }
  await running
  sampling = false
  await sampler
  note(`traffic over: ${traffic.incoming.length} in, ${traffic.outgoing.length} out acknowledged; draining`)

  // Drained: every incoming message and every acknowledged send has reached the webhook, or 5 minutes passed.
  const incomingDone = () => traffic.incoming.every(({ id }) => receiver.received.has(id))
  const sentDone = () => traffic.outgoing.every(({ id }) => receiver.sent.has(id))
  const drainDeadline = Date.now() + 300_000
  while (!(incomingDone() && sentDone()) && Date.now() < drainDeadline) await sleep(500)
  await sleep(3_000) // a late duplicate still counts
  const pgAtEnd = await cluster.pgSample()
  const inboxes = new Set<string>()
  for (const contact of contacts) {
    const response = await fetch(`${sandbox.controlUrl}/accounts/${contact}/messages`)
    const { messages } = (await response.json()) as { messages: Array<{ id: string }> }
    for (const message of messages) inboxes.add(message.id)
  }
  note(`drained; ${receiver.posts} webhook POSTs, ${receiver.events} events in all`)

  const latencies = (list: Sent[]) =>
    list
      .map(({ id, at }) => (receiver.received.get(id)?.firstAt ?? NaN) - at)
      .filter((ms) => !Number.isNaN(ms))
  const waveCount = Math.ceil(config.durationMs / config.waveMs)
  const waves: WaveFigures[] = Array.from({ length: waveCount }, (_, wave) => {
    const incoming = traffic.incoming.filter((sent) => sent.wave === wave)
    const outgoing = traffic.outgoing.filter((sent) => sent.wave === wave)
    return {
      wave,
      incoming: incoming.length,
      incomingLost: incoming.filter(({ id }) => !receiver.received.has(id)).length,
      incomingDuplicated: incoming.filter(({ id }) => (receiver.received.get(id)?.eventIds.size ?? 0) > 1)
        .length,
      sendsAcknowledged: outgoing.length,
      sendsRefused: traffic.refusedByWave.get(wave) ?? 0,
      sendsNotDelivered: outgoing.filter(({ id }) => !inboxes.has(id)).length,
      sendEventsMissing: outgoing.filter(({ id }) => !receiver.sent.has(id)).length,
      sendEventsDuplicated: outgoing.filter(({ id }) => (receiver.sent.get(id)?.eventIds.size ?? 0) > 1)
        .length,
    }
  }).filter((wave) => wave.incoming + wave.sendsAcknowledged + wave.sendsRefused > 0)
  const all = latencies(traffic.incoming)
  // The slowest messages, to read against the timeline (which fault they waited for).
  const slowest = traffic.incoming
    .map((sent) => ({ sent, seen: receiver.received.get(sent.id) }))
    .filter(({ seen }) => seen !== undefined)
    .sort((a, b) => b.seen!.firstAt - b.sent.at - (a.seen!.firstAt - a.sent.at))
    .slice(0, 8)
  for (const { sent, seen } of slowest)
    note(
      `slow: ${sent.id} to ${sent.instanceId} sent at +${((sent.at - trafficStart) / 60_000).toFixed(2)} min, ` +
        `posted by ${seen!.node} ${((seen!.firstAt - sent.at) / 1000).toFixed(1)} s later`,
    )
  const messages = traffic.incoming.length + traffic.outgoing.length
  const trafficS = (Date.now() - trafficStart) / 1000
  return {
    config,
    startedAt: run.startedAt,
    endedAt: new Date(),
    loadAtStart: run.loadAtStart,
    loadAtEnd: loadAverage(),
    linkMs,
    linked: accounts.length,
    linkRetries: Object.fromEntries(linkRetries),
    linkTenthsS,
    spreadAfterLink,
    spreadAtEnd: await spreadOf(),
    fixed,
    idle,
    waves,
    windows: windows.map((window) => {
      const sent = traffic.incoming.filter(
        ({ at }) => at >= trafficStart + window.fromMin * 60_000 && at < trafficStart + window.toMin * 60_000,
      )
      const ms = latencies(sent)
      return {
        ...window,
        p50Ms: percentile(ms, 50),
        p99Ms: percentile(ms, 99),
        incoming: sent.length,
        lost: sent.filter(({ id }) => !receiver.received.has(id)).length,
      }
    }),
    faults,
    latency: {
      p50Ms: percentile(all, 50),
      p99Ms: percentile(all, 99),
      maxMs: all.length ? Math.max(...all) : NaN,
      count: all.length,
    },
    pgPerMessage: {
      transactions: (pgAtEnd.transactions - pgAtStart.transactions) / messages,
      statements: (pgAtEnd.statements - pgAtStart.statements) / messages,
    },
    pgConnections: pgAtEnd.connections,
    pgBytesPerAccountDay:
      ((pgAtEnd.sizeBytes - pgAtStart.sizeBytes) / accounts.length) * (86_400 / Math.max(1, trafficS)),
    pgSizeBytes: pgAtEnd.sizeBytes,
    refusals: Object.fromEntries(traffic.refusals),
    timeline: run.timeline,
  }
}

/**
 * The traffic: in each wave, account n receives its message at n/N of the wave and sends its own half a slot
 * later, through the live nodes in turn (any node answers for any instance).
 */
class Traffic {
  readonly incoming: Sent[] = []
  readonly outgoing: Sent[] = []
  readonly refusedByWave = new Map<number, number>()
  readonly refusals = new Map<string, number>()
  private calls = 0

  constructor(
    private readonly cluster: ScaleCluster,
    private readonly accounts: Account[],
    private readonly waveMs: number,
  ) {}

  async run(from: number, until: number): Promise<void> {
    const slots = this.accounts.length * 2
    const inFlight = new Set<Promise<void>>()
    for (let k = 0; ; k++) {
      const wave = Math.floor(k / slots)
      const slot = k % slots
      const due = from + wave * this.waveMs + (slot / slots) * this.waveMs
      if (due >= until) break
      const wait = due - Date.now()
      if (wait > 0) await sleep(wait)
      // Calls to a stopped node wait for their timeout: the others go on beside them, up to this many.
      while (inFlight.size >= 512) await sleep(5)
      const account = this.accounts[Math.floor(slot / 2)]!
      const task: Promise<void> = (
        slot % 2 === 0 ? this.receive(account, wave) : this.send(account, wave)
      ).finally(() => inFlight.delete(task))
      inFlight.add(task)
    }
    await Promise.all(inFlight)
  }

  private async receive(account: Account, wave: number): Promise<void> {
    const at = Date.now()
    try {
      const id = await this.cluster.sandbox.send(
        account.contact,
        account.phone,
        `wave ${wave} to ${account.phone}`,
      )
      this.incoming.push({ id, wave, instanceId: account.instanceId, at })
    } catch (error) {
      this.refuse(wave, `sandbox: ${(error as Error).message.slice(0, 80)}`)
    }
  }

  private async send(account: Account, wave: number): Promise<void> {
    const live = this.cluster.live()
    const node = live[this.calls++ % Math.max(1, live.length)]
    if (!node) return this.refuse(wave, 'no live node')
    const answer = await this.cluster.call(node, 'send_message', {
      instance_id: account.instanceId,
      number: account.contact,
      type: 'text',
      message: `wave ${wave} from ${account.phone}`,
    })
    const id = (answer.body.message as { key?: { id?: unknown } } | undefined)?.key?.id
    if (answer.status === 200 && typeof id === 'string')
      this.outgoing.push({ id, wave, instanceId: account.instanceId, at: Date.now() })
    else this.refuse(wave, `${answer.status} ${String(answer.body.code ?? answer.body.message ?? '')}`)
  }

  private refuse(wave: number, why: string): void {
    this.refusedByWave.set(wave, (this.refusedByWave.get(wave) ?? 0) + 1)
    this.refusals.set(why, (this.refusals.get(why) ?? 0) + 1)
  }
}

type FaultRun = (
  cluster: ScaleCluster,
  accounts: Account[],
  config: ScaleConfig,
  note: (text: string) => void,
) => Promise<Record<string, number | string>>

/** Instances held by `node` now. */
async function heldBy(cluster: ScaleCluster, node: ScaleNode): Promise<string[]> {
  return [...(await cluster.owners())].filter(([, owner]) => owner === node.id).map(([id]) => id)
}

/**
 * Waits until every one of `instances` was seen connected (a connection.update at the receiver) since `since`
 * on a node other than `notOn`; answers each one's time from `since` (ms), sorted; NaN for the ones never seen.
 */
async function reconnected(
  cluster: ScaleCluster,
  instances: string[],
  since: number,
  timeoutMs: number,
  notOn?: string,
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  // The receiver's connection.update, or (every 2 s, for the ones it has not seen) the owner's own answer.
  const polled = new Map<string, number>()
  const at = (id: string) => cluster.receiver.connectedAfter(id, since, notOn) ?? polled.get(id)
  let lastPoll = Date.now()
  while (instances.some((id) => at(id) === undefined) && Date.now() < deadline) {
    await sleep(200)
    if (Date.now() - lastPoll < 2_000) continue
    lastPoll = Date.now()
    const missing = instances.filter((id) => at(id) === undefined)
    await inPool(missing.length, 16, async (n) => {
      const id = missing[n]!
      if (await cluster.connectedSince(id, since, notOn)) polled.set(id, Date.now())
    })
  }
  return instances
    .map((id) => {
      const time = at(id)
      return time === undefined ? NaN : time - since
    })
    .sort((a, b) => a - b)
}

/** p50, p99 and max of reconnect times, and how many never came back (NaN). */
function reconnectFigures(prefix: string, times: number[]): Record<string, number> {
  const seen = times.filter((ms) => !Number.isNaN(ms))
  return {
    [`${prefix}_count`]: times.length,
    [`${prefix}_missing`]: times.length - seen.length,
    [`${prefix}_first_s`]: (seen[0] ?? NaN) / 1000,
    [`${prefix}_p50_s`]: percentile(seen, 50) / 1000,
    [`${prefix}_p99_s`]: percentile(seen, 99) / 1000,
    [`${prefix}_all_s`]: (seen.length ? Math.max(...seen) : NaN) / 1000,
  }
}

const FAULT_RUNS: Record<Fault, FaultRun> = {
  /** kill -9 of the last node mid-wave; its accounts connect on the others; it comes back and fills up again. */
  async kill(cluster, accounts, config, note) {
    const victim = cluster.nodes[cluster.nodes.length - 1]!
    const theirs = await heldBy(cluster, victim)
    const killedAt = Date.now()
    await cluster.kill(victim)
    const times = await reconnected(cluster, theirs, killedAt, config.ttlMs + 300_000, victim.id)
    const figures: Record<string, number | string> = reconnectFigures('failover', times)
    note(
      `failover: ${theirs.length} accounts of ${victim.id} connected elsewhere after ${figures.failover_all_s} s`,
    )
    await sleep(10_000)
    const startedAt = Date.now()
    await cluster.startNode(victim)
    const joinedAt = Date.now()
    figures.restart_s = (joinedAt - startedAt) / 1000
    const fair = accounts.length / cluster.nodes.length
    const share: Array<[number, number]> = []
    let atFifth: number | undefined
    let atFair: number | undefined
    const last = cluster.nodes.length - 1
    // Watched for rebalanceWatchMs, and on until it holds its fair share (at most 2.5 times as long).
    const watching = () => {
      const since = Date.now() - joinedAt
      return (
        since < config.rebalanceWatchMs || (atFair === undefined && since < config.rebalanceWatchMs * 2.5)
      )
    }
    while (watching()) {
      const held = (await cluster.loads())[last] ?? 0
      const since = Date.now() - joinedAt
      share.push([since, held])
      if (atFifth === undefined && held >= accounts.length * 0.2) atFifth = since
      if (atFair === undefined && held >= fair * 0.9) atFair = since
      await sleep(1_000)
    }
    const heldAt = (ms: number) => [...share].reverse().find(([since]) => since <= ms)?.[1] ?? 0
    figures.back_30s = heldAt(30_000)
    figures.back_60s = heldAt(60_000)
    figures.back_120s = heldAt(120_000)
    figures.back_share_120s_pct = (heldAt(120_000) / accounts.length) * 100
    figures.back_to_20pct_s = atFifth === undefined ? NaN : atFifth / 1000
    figures.back_to_fair_s = atFair === undefined ? NaN : atFair / 1000
    // The accounts it took back are connected on it.
    const back = await heldBy(cluster, victim)
    const backTimes = await reconnected(cluster, back, joinedAt, 120_000)
    figures.back_connected = backTimes.filter((ms) => !Number.isNaN(ms)).length
    figures.back_held = back.length
    return figures
  },

  /** Every node in turn: SIGTERM (drain), its accounts connect elsewhere, started again. */
  async rolling(cluster, _accounts, config) {
    const figures: Record<string, number | string> = {}
    const startedAt = Date.now()
    let worstHandover = 0
    for (const node of cluster.nodes) {
      const theirs = await heldBy(cluster, node)
      const at = Date.now()
      await cluster.drain(node)
      figures[`${node.id}_drain_s`] = (Date.now() - at) / 1000
      const times = await reconnected(cluster, theirs, at, config.ttlMs + 300_000, node.id)
      const all = times.length ? Math.max(...times) : 0
      worstHandover = Math.max(worstHandover, Number.isNaN(all) ? Infinity : all)
      figures[`${node.id}_accounts`] = theirs.length
      figures[`${node.id}_handover_s`] = all / 1000
      figures[`${node.id}_missing`] = times.filter((ms) => Number.isNaN(ms)).length
      await cluster.startNode(node)
    }
    figures.total_s = (Date.now() - startedAt) / 1000
    figures.worst_handover_s = worstHandover / 1000
    return figures
  },

  /** PostgreSQL restarted (every connection cut); every node answers with its lease alive again. */
  async postgres(cluster, _accounts, config) {
    const before = await cluster.owners()
    const at = Date.now()
    await cluster.pg.restart()
    const restartS = (Date.now() - at) / 1000
    const healthy = await cluster.allHealthy(config.ttlMs + 120_000)
    const recoveredS = (Date.now() - at) / 1000
    await sleep(config.ttlMs)
    const after = await cluster.owners()
    const moved = [...before].filter(([id, owner]) => after.get(id) !== owner).length
    const connections = (await cluster.pgSample()).connections
    return {
      restart_s: restartS,
      all_nodes_healthy_s: healthy ? recoveredS : NaN,
      instances_moved: moved,
      connections_after: Object.values(connections).reduce((sum, n) => sum + n, 0),
    }
  },

  /** The sandbox cuts every socket at once; every account reconnects by itself. */
  async cut(cluster, accounts) {
    const at = Date.now()
    const devices = await cluster.sandbox.dropAll()
    const times = await reconnected(
      cluster,
      accounts.map((account) => account.instanceId),
      at,
      300_000,
    )
    return { devices_cut: devices, ...reconnectFigures('reconnect', times) }
  },

  /** A node stopped (SIGSTOP) past its lease: its accounts move; resumed (SIGCONT), it joins again. */
  async pause(cluster, _accounts, config, note) {
    const victim = cluster.nodes[Math.min(1, cluster.nodes.length - 1)]!
    const theirs = await heldBy(cluster, victim)
    const at = Date.now()
    cluster.pause(victim)
    const pauseMs = config.ttlMs + 5_000
    const times = await reconnected(cluster, theirs, at, config.ttlMs + 300_000, victim.id)
    await sleep(Math.max(0, at + pauseMs - Date.now()))
    const resumedAt = Date.now()
    cluster.resume(victim)
    note(`${victim.id} resumed after ${((resumedAt - at) / 1000).toFixed(1)} s`)
    let rejoinS = NaN
    const deadline = Date.now() + 120_000
    while (Date.now() < deadline) {
      if (await cluster.healthy(victim)) {
        rejoinS = (Date.now() - resumedAt) / 1000
        break
      }
      await sleep(250)
    }
    return { paused_s: (resumedAt - at) / 1000, ...reconnectFigures('failover', times), rejoin_s: rejoinS }
  },
}
