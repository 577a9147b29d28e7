// Main-thread CPU per delivered webhook, with the POSTs in a delivery thread (`--delivery-threads 1`) and on
// the main thread (the default), side by side in one run: the same EventService, store and events,
// a receiver in its own process. The main thread's own CPU time is read from /proc (its task has the process
// id); the process's total (every thread) from process.cpuUsage.
//
//   npm run bench:delivery-threads [-- --events N]   (Linux)
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { DEFAULT_EVENT_SETTINGS } from '../electron/core/contract/event-settings'
import { eventFixture } from '../electron/core/testing/event-fixture'
import { loadAverage } from './harness/proc'
import { markdownTable } from './harness/table'
import { ReceiverProcess, wallClock } from './webhook-delivery'

const { values } = parseArgs({ options: { events: { type: 'string', default: '2000' } } })
const EVENTS = Number(values.events)
const INSTANCES = 4
const TICK_MS = 1000 / 100

/** The main thread's CPU time so far (user + system), milliseconds; in clock ticks of 10 ms. */
function mainThreadMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

function processMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

async function run(receiver: ReceiverProcess, deliveryThreads: number) {
  const fixture = await eventFixture(DEFAULT_EVENT_SETTINGS, undefined, { deliveryThreads })
  try {
    for (let i = 0; i < INSTANCES; i++) fixture.addInstance(`I${i}`, receiver.url)
    await receiver.take()
    const [main0, total0, started] = [mainThreadMs(), processMs(), wallClock()]
    for (let n = 0; n < EVENTS; n++) {
      fixture.service.emit(`I${n % INSTANCES}`, 'message.received', { text: `bench:${wallClock()} ${n}` })
      if (n % 100 === 99) await new Promise((resolve) => setImmediate(resolve))
    }
    await receiver.collect(EVENTS)
    const seconds = (wallClock() - started) / 1000
    return {
      mainMs: (mainThreadMs() - main0) / EVENTS,
      totalMs: (processMs() - total0) / EVENTS,
      perSecond: EVENTS / seconds,
    }
  } finally {
    await fixture.close()
  }
}

const receiver = await ReceiverProcess.start()
const rows: string[][] = []
const load = loadAverage()
// Twice each, alternating, after a warm-up of each: the figures of the second round are kept.
for (const round of [0, 1, 2]) {
  for (const threads of [1, 0]) {
    const result = await run(receiver, threads)
    if (round === 0) continue
    rows.push([
      threads === 1 ? 'delivery thread' : 'main thread (the default)',
      String(round),
      result.mainMs.toFixed(3),
      result.totalMs.toFixed(3),
      result.perSecond.toFixed(0),
    ])
  }
}
receiver.stop()
console.log(
  `${EVENTS} events to ${INSTANCES} instances' webhooks, one receiver process, load average ${load.toFixed(1)} on this machine\n`,
)
console.log(
  markdownTable(
    ['POSTs on', 'round', 'main-thread CPU ms / event', 'process CPU ms / event', 'events/s'],
    rows,
  ),
)
