// A child process for the crash tests: emits events for one instance whose webhook is the given URL (with
// "messages", each announcing network message M<n>) and prints their ids on one line; then either keeps
// delivering until it is killed ("hang") or kills itself with SIGKILL at once, before LMDB has committed
// anything ("die"). With an added webhook's URL, every event also goes to that webhook's own queue.
import { FAST_EVENT_SETTINGS, eventFixture, oneAddedWebhook } from './event-fixture'

const [dataDir, url, count, mode, kind, addedUrl] = process.argv.slice(2)
if (!dataDir || !url || !count)
  throw new Error(
    'usage: emit-and-hang <dataDir> <webhookUrl> <count> [hang|die] [messages|events] [addedUrl]',
  )

const fixture = await eventFixture(
  FAST_EVENT_SETTINGS,
  dataDir,
  addedUrl ? { webhooks: oneAddedWebhook('CRASH', addedUrl) } : {},
)
fixture.addInstance('CRASH', url)
const ids: string[] = []
for (let n = 0; n < Number(count); n++) {
  const event =
    kind === 'messages'
      ? await fixture.service.emitForMessage('CRASH', `M${n}`, 'message.received', { n })
      : fixture.service.emit('CRASH', 'message.received', { n })
  if (event) ids.push(event.event_id)
}
// Each id printed is acknowledged: durable from here on (journaled, or committed by a store without a journal).
await fixture.service.durable()
process.stdout.write(`${JSON.stringify(ids)}\n`)
if (mode === 'die') process.kill(process.pid, 'SIGKILL')
setInterval(() => {}, 60_000)
