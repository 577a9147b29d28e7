// Scale: N accounts (1,000) over M nodes (3) on one PostgreSQL, one outside sandbox and one webhook receiver,
// all started here on loopback. Links every account, then runs a compressed day: every account receives one
// message a minute from a sandbox contact and sends one through the API, while a node is killed (kill -9) and
// comes back, every node is restarted in turn (SIGTERM drain), PostgreSQL restarts, the sandbox cuts every
// socket at once and a node is paused past its lease. `npm run bench:scale` writes its section of
// bench/results.md and its block of docs/scaling.md.
// Flags: --accounts 1000, --nodes 3, --profile long|short (an hour or ten minutes), --duration 60m (or 600s),
// --faults kill,rolling,postgres,cut,pause, --wave-s 60, --ttl-ms 10000, --link-concurrency 8, --rebalance-watch-s 120.
// Under `npm run bench`: BENCH_SCALE_PROFILE (short), BENCH_SCALE_ACCOUNTS (1000), BENCH_SCALE_NODES (3).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { isEntry, metOrMissed, type Figure, type TargetRow } from './harness/figure'
import { machineLine, RESULTS_PATH, withBlock } from './harness/results'
import {
  FAULTS,
  type Fault,
  profileConfig,
  runScale,
  type ScaleConfig,
  type ScaleReport,
} from './harness/scale-run'
import { markdownTable } from './harness/table'

export const SCALING_DOC = fileURLToPath(new URL('../docs/scaling.md', import.meta.url))
const MB = 1024 * 1024

/** A duration flag: `60m`, `600s`, `1h`, or a number of minutes. */
function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim())
  if (!match) throw new Error(`--duration ${text}: a number with s, m or h`)
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? 'm'] ?? 60_000
  return Number(match[1]) * unit
}

function faultsOf(text: string): Fault[] {
  if (text === '' || text === 'none') return []
  const faults = text.split(',')
  for (const fault of faults)
    if (!(FAULTS as readonly string[]).includes(fault))
      throw new Error(`--faults: ${fault} is not one of ${FAULTS.join(', ')}`)
  return faults as Fault[]
}

/** The configuration the command line (or, under `npm run bench`, the environment) asks for. */
export function configFromArgs(args: string[]): ScaleConfig {
  const { values } = parseArgs({
    args,
    options: {
      accounts: { type: 'string' },
      nodes: { type: 'string' },
      profile: { type: 'string' },
      duration: { type: 'string' },
      faults: { type: 'string' },
      'wave-s': { type: 'string' },
      'ttl-ms': { type: 'string' },
      'link-concurrency': { type: 'string' },
      'rebalance-watch-s': { type: 'string' },
    },
  })
  const profile = values.profile ?? 'long'
  if (profile !== 'long' && profile !== 'short') throw new Error('--profile is long or short')
  const count = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined
    const n = Number(text)
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} ${text}: a whole number ≥ 1`)
    return n
  }
  const overrides: Partial<ScaleConfig> = {}
  const set = <K extends keyof ScaleConfig>(key: K, value: ScaleConfig[K] | undefined) => {
    if (value !== undefined) overrides[key] = value
  }
  set('accounts', count('accounts', values.accounts))
  set('nodes', count('nodes', values.nodes))
  set('durationMs', values.duration === undefined ? undefined : durationMs(values.duration))
  set('faults', values.faults === undefined ? undefined : faultsOf(values.faults))
  set('waveMs', values['wave-s'] === undefined ? undefined : (count('wave-s', values['wave-s']) ?? 60) * 1000)
  set('ttlMs', count('ttl-ms', values['ttl-ms']))
  set('linkConcurrency', count('link-concurrency', values['link-concurrency']))
  const watchS = count('rebalance-watch-s', values['rebalance-watch-s'])
  set('rebalanceWatchMs', watchS === undefined ? undefined : watchS * 1000)
  return profileConfig(profile, overrides)
}

const f = (n: number | string | undefined, digits = 1): string =>
  typeof n === 'number'
    ? Number.isNaN(n)
      ? 'n/a'
      : n.toFixed(digits)
    : // A text (a fault's error) stays on one line of its table cell.
      String(n ?? 'n/a')
        .replace(/\\n|\s+/g, ' ')
        .replaceAll('|', '\\|')
        .slice(0, 300)
const mb = (bytes: number) => (bytes / MB).toFixed(0)
const sum = (values: number[]) => values.reduce((total, n) => total + n, 0)

/** The targets of the scale bench against one run, as summary rows. */
export function scaleTargets(report: ScaleReport): TargetRow[] {
  const { config } = report
  const lostIn = sum(report.waves.map((wave) => wave.incomingLost))
  const dupIn = sum(report.waves.map((wave) => wave.incomingDuplicated))
  const lostOut = sum(report.waves.map((wave) => wave.sendsNotDelivered + wave.sendEventsMissing))
  const dupOut = sum(report.waves.map((wave) => wave.sendEventsDuplicated))
  const kill = report.faults.find((fault) => fault.fault === 'kill')?.figures
  const failoverS = Number(kill?.failover_all_s ?? NaN)
  const backPct = Number(kill?.back_share_120s_pct ?? NaN)
  const netPerAccount =
    (sum(report.idle.map((s) => s.rssBytes)) - sum(report.fixed.map((s) => s.rssBytes))) / MB / report.linked
  const first = report.windows[0]
  const last = report.windows[report.windows.length - 1]
  const growth = first && last ? (last.rssPerAccountMb / first.rssPerAccountMb - 1) * 100 : NaN
  const rows: TargetRow[] = [
    {
      figure: `link ${config.accounts} accounts over ${config.nodes} nodes`,
      app: `${f(report.linkMs / 60_000)} min (${report.linked} linked)`,
      beside: `spread ${Object.values(report.spreadAfterLink).join('/')}`,
      target: `≤ 10 min: ${metOrMissed(report.linkMs <= 600_000)}`,
    },
    {
      figure: `events lost / duplicated over ${report.waves.length} waves (kill, return, restarts)`,
      app: `in: ${lostIn} / ${dupIn} of ${sum(report.waves.map((w) => w.incoming))}; out: ${lostOut} / ${dupOut} of ${sum(report.waves.map((w) => w.sendsAcknowledged))}`,
      beside: `${sum(report.waves.map((w) => w.sendsRefused))} sends refused (not acknowledged)`,
      target: `0 and 0: ${metOrMissed(lostIn + dupIn + lostOut + dupOut === 0)}`,
    },
  ]
  if (kill)
    rows.push(
      {
        figure: 'failover: the killed node’s accounts connected elsewhere',
        app: `${f(failoverS)} s for ${kill.failover_count}`,
        beside: `lease TTL ${config.ttlMs / 1000} s; first at ${f(kill.failover_first_s)} s`,
        target: `≤ TTL + 30 s: ${metOrMissed(failoverS <= config.ttlMs / 1000 + 30)}`,
      },
      {
        figure: 'the returned node’s share 2 minutes after it joined',
        app: `${f(backPct)} % (${kill.back_120s} accounts)`,
        beside: `20 % at ${f(kill.back_to_20pct_s)} s; fair share at ${f(kill.back_to_fair_s)} s`,
        target: `≥ 20 %: ${metOrMissed(backPct >= 20)}`,
      },
    )
  rows.push(
    {
      figure: 'event latency, contact’s send → webhook',
      app: `p50 ${f(report.latency.p50Ms, 0)} ms, p99 ${f(report.latency.p99Ms, 0)} ms`,
      beside: `max ${f(report.latency.maxMs / 1000)} s over ${report.latency.count} messages, faults included`,
      target: `p99 ≤ 5 s: ${metOrMissed(report.latency.p99Ms <= 5_000)}`,
    },
    {
      figure: 'RSS per account (after linking, idle; then first → last window)',
      app: `${f(netPerAccount, 2)} MB net; ${f(first?.rssPerAccountMb, 2)} → ${f(last?.rssPerAccountMb, 2)} MB gross`,
      beside: `${f(growth)} % from the first to the last window`,
      target: `≤ 5 MB and ≤ +10 %: ${metOrMissed(netPerAccount <= 5 && (first?.rssPerAccountMb ?? Infinity) <= 5 && growth <= 10)}`,
    },
  )
  return rows
}

const FAULT_TITLES: Record<Fault, string> = {
  kill: 'kill -9 of a node mid-wave, and its return',
  rolling: 'rolling restart (SIGTERM drain, then start) of every node',
  postgres: 'PostgreSQL restarted (`pg_ctl restart -m fast`)',
  cut: 'the sandbox cuts every socket at once (`POST /drop`)',
  pause: 'a node paused (SIGSTOP) past its lease, then resumed',
}

/** The run's section of bench/results.md. */
export function scaleMarkdown(report: ScaleReport): string {
  const { config } = report
  const minute = (date: Date) => date.toISOString().slice(0, 16).replace('T', ' ')
  const targets = scaleTargets(report)
  const perNode = (samples: ScaleReport['fixed']) =>
    samples.map((s) => `${s.node} ${mb(s.rssBytes)}`).join(', ')
  const idleNet =
    (sum(report.idle.map((s) => s.rssBytes)) - sum(report.fixed.map((s) => s.rssBytes))) / MB / report.linked
  const waveRows = report.waves.map((wave) => [
    String(wave.wave + 1),
    String(wave.incoming),
    String(wave.incomingLost),
    String(wave.incomingDuplicated),
    String(wave.sendsAcknowledged),
    String(wave.sendsRefused),
    String(wave.sendsNotDelivered),
    String(wave.sendEventsMissing),
    String(wave.sendEventsDuplicated),
  ])
  const windowRows = report.windows.map((window) => [
    `${f(window.fromMin, 0)}–${f(window.toMin, 0)}`,
    window.nodes.map((s) => `${mb(s.rssBytes)}/${mb(s.heapBytes)}`).join(', '),
    window.nodes.map((s) => String(s.fds)).join(', '),
    f(window.rssPerAccountMb, 2),
    f(window.p50Ms, 0),
    f(window.p99Ms, 0),
    String(window.incoming),
    String(window.lost),
    String(sum(Object.values(window.pg.connections))),
    f(window.load),
  ])
  const faultSections = report.faults.map((fault) =>
    [
      `**${FAULT_TITLES[fault.fault]}**, at +${f(fault.atMin)} min:`,
      '',
      markdownTable(
        ['figure', 'value'],
        Object.entries(fault.figures).map(([name, value]) => [name.replaceAll('_', ' '), f(value)]),
      ),
    ].join('\n'),
  )
  return [
    `## Scale: ${config.accounts} accounts over ${config.nodes} nodes, a compressed day of ${f(config.durationMs / 60_000, 0)} min`,
    '',
    `One run of \`npm run bench:scale\`, ${minute(report.startedAt)}–${minute(report.endedAt).slice(11)} UTC; ` +
      `1-minute load ${report.loadAtStart.toFixed(2)} at the start, ${report.loadAtEnd.toFixed(2)} at the end ` +
      '(the machine is shared: other work ran beside it). ' +
      `${config.nodes} compiled \`serve\` nodes (lease TTL ${config.ttlMs / 1000} s) on one PostgreSQL 15 ` +
      '(a throwaway cluster with its defaults, fsync on), one outside sandbox process and one webhook receiver, ' +
      `all on loopback; every account's webhook points at the receiver. Each wave (${config.waveMs / 1000} s), ` +
      'every account receives one message from a sandbox contact and sends one to it through the API (any live ' +
      'node in turn). Faults: ' +
      (report.faults.map((fault) => `${fault.fault} at +${f(fault.atMin)} min`).join(', ') || 'none') +
      '.',
    '',
    markdownTable(
      ['target', 'measured', 'beside it', 'verdict'],
      targets.map((row) => [row.figure, row.app, row.beside, row.target]),
    ),
    '',
    `**Linking**: ${config.accounts} accounts in ${f(report.linkMs / 1000)} s (${config.linkConcurrency} at a ` +
      `time; each tenth connected at ${report.linkTenthsS.map((s) => f(s, 0)).join(', ')} s). Spread after ` +
      `linking ${JSON.stringify(report.spreadAfterLink)}, at the end ${JSON.stringify(report.spreadAtEnd)}. ` +
      `Link steps answered 503 and tried again a second later: ${JSON.stringify(report.linkRetries)}.`,
    '',
    `**Memory**: RSS with no account ${perNode(report.fixed)} MB; idle after linking ${perNode(report.idle)} MB: ` +
      `${f(idleNet, 2)} MB per account net of the fixed part, ` +
      `${f(sum(report.idle.map((s) => s.rssBytes)) / MB / report.linked, 2)} MB gross.`,
    '',
    `**PostgreSQL**: ${f(report.pgPerMessage.transactions, 2)} transactions (pg_stat_database) and ` +
      `${f(report.pgPerMessage.statements, 2)} statements (pg_stat_statements, BEGIN/COMMIT included) per message ` +
      `in or out, everything counted (leases, ticks, deliveries); connections at the end ` +
      `${JSON.stringify(report.pgConnections)}; database ${mb(report.pgSizeBytes)} MB at the end, growing ` +
      `${f(report.pgBytesPerAccountDay / MB, 2)} MB per account per day at this traffic.`,
    '',
    `**Refused sends** (answered with an error, so never acknowledged): ${JSON.stringify(report.refusals)}.`,
    '',
    '**Faults**',
    '',
    ...faultSections.flatMap((section) => [section, '']),
    '**Per window** (RSS/heap after a full GC per node in MB, open descriptors per node, latency of the ' +
      'messages sent in the window, PostgreSQL connections, 1-minute load):',
    '',
    markdownTable(
      [
        'minutes',
        'RSS/heap MB',
        'fds',
        'RSS MB/account',
        'p50 ms',
        'p99 ms',
        'in',
        'lost',
        'pg conns',
        'load',
      ],
      windowRows,
    ),
    '',
    '**Per wave** (in: the contacts’ messages; out: the API’s acknowledged sends):',
    '',
    markdownTable(
      ['wave', 'in', 'lost', 'dup', 'out acked', 'refused', 'not in inbox', 'no sent event', 'dup sent'],
      waveRows,
    ),
    '',
    '<details><summary>Timeline</summary>',
    '',
    ...report.timeline.map((line) => `- ${line}`),
    '',
    '</details>',
  ].join('\n')
}

/** The block of docs/scaling.md the run writes: its targets, dated. */
function scalingBlock(report: ScaleReport): string {
  const minute = report.startedAt.toISOString().slice(0, 16).replace('T', ' ')
  return [
    `**${report.config.accounts} accounts over ${report.config.nodes} nodes, ${minute} UTC** (load ` +
      `${report.loadAtStart.toFixed(1)} → ${report.loadAtEnd.toFixed(1)}; the whole run in bench/results.md):`,
    '',
    '| target | measured | beside it | verdict |',
    '|---|---|---|---|',
    ...scaleTargets(report).map(
      (row) =>
        `| ${[row.figure, row.app, row.beside, row.target].map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`,
    ),
  ].join('\n')
}

/** Writes the run's block of docs/scaling.md. */
function writeScalingDoc(report: ScaleReport): void {
  writeFileSync(SCALING_DOC, withBlock(readFileSync(SCALING_DOC, 'utf8'), 'scale', scalingBlock(report)))
}

/** Under `npm run bench`: the short profile (BENCH_SCALE_PROFILE=long for the hour). */
export const scaleFigure: Figure = async ({ target }) => {
  const args = [
    `--profile=${process.env.BENCH_SCALE_PROFILE ?? 'short'}`,
    ...(process.env.BENCH_SCALE_ACCOUNTS ? [`--accounts=${process.env.BENCH_SCALE_ACCOUNTS}`] : []),
    ...(process.env.BENCH_SCALE_NODES ? [`--nodes=${process.env.BENCH_SCALE_NODES}`] : []),
  ]
  const report = await runScale(configFromArgs(args), (line) => process.stdout.write(`scale: ${line}\n`))
  for (const row of scaleTargets(report)) target(row)
  writeScalingDoc(report)
  // Between markers, so that a run of `npm run bench:scale` alone replaces it (with the load line after it).
  return `<!-- bench:scale -->\n${scaleMarkdown(report)}\n<!-- /bench:scale -->`
}

/** bench/results.md with this run's section in place of the last one's (or added at its end). */
function withScaleSection(results: string, section: string): string {
  if (!results.includes('<!-- bench:scale -->'))
    return `${results.trimEnd()}\n\n<!-- bench:scale -->\n${section}\n<!-- /bench:scale -->\n`
  // Under `npm run bench` the load line follows the block: the new one is inside it.
  const unlined = results.replace(/<!-- \/bench:scale -->\n\nMeasured [^\n]*\n/, '<!-- /bench:scale -->\n')
  return withBlock(unlined, 'scale', section)
}

if (isEntry(import.meta.url)) {
  const started = Date.now()
  const loadBefore = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
  runScale(configFromArgs(process.argv.slice(2)), (line) => process.stdout.write(`${line}\n`)).then(
    (report) => {
      const loadAfter = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
      const section = `${scaleMarkdown(report)}\n\n${machineLine(loadBefore, loadAfter)}`
      process.stdout.write(`\n${section}\n`)
      // Its own section of bench/results.md (replaced by the next run), and its block of docs/scaling.md.
      writeFileSync(RESULTS_PATH, withScaleSection(readFileSync(RESULTS_PATH, 'utf8'), section))
      // The raw figures beside the nodes' logs, to read further than the tables.
      writeFileSync(join(report.config.logDir, 'report.json'), JSON.stringify(report, null, 1))
      writeScalingDoc(report)
      process.stdout.write(
        `\nWritten to ${RESULTS_PATH} and ${SCALING_DOC} (${((Date.now() - started) / 60_000).toFixed(1)} min)\n`,
      )
      process.exit(0)
    },
    (error: unknown) => {
      process.stderr.write(`bench scale failed: ${(error as Error).stack}\n`)
      process.exit(1)
    },
  )
}
