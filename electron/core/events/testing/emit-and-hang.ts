// A child process for the crash test: emits events for one instance whose webhook is the given URL, prints
// their ids on one line, then keeps delivering until it is killed.
import { FAST_EVENT_SETTINGS, eventFixture } from './event-fixture'

const [dataDir, url, count] = process.argv.slice(2)
if (!dataDir || !url || !count) throw new Error('usage: emit-and-hang <dataDir> <webhookUrl> <count>')

const fixture = eventFixture(FAST_EVENT_SETTINGS, dataDir)
fixture.addInstance('CRASH', url)
const ids: string[] = []
for (let n = 0; n < Number(count); n++)
  ids.push(fixture.service.emit('CRASH', 'message.received', { n }).event_id)
process.stdout.write(`${JSON.stringify(ids)}\n`)
setInterval(() => {}, 60_000)
