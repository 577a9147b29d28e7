// Child process for the crash test: writes key batches and creds of two instances as fast as it can until killed.
import { randomBytes } from 'node:crypto'
import { LmdbAuthStore } from '../store/lmdb/auth'

const WRITER_INSTANCES = ['A', 'B']

const dataDir = process.argv[2]
if (!dataDir) throw new Error('usage: auth-store-writer <dataDir>')
const auth = new LmdbAuthStore(dataDir)
const stores = WRITER_INSTANCES.map((id) => auth.forInstance(id))
let seq = stores[0]!.readCreds<{ seq: number }>()?.seq ?? 0
// Announced (and killable) only once two rounds of its own are committed: every run makes progress, however
// slow the machine, and the kill still lands among writes in flight.
const announceAt = seq + 2
let announced = false

for (;;) {
  seq += 1
  const writes: Array<Promise<void>> = []
  for (const store of stores) {
    const sessions: Record<string, unknown> = {}
    for (let i = 0; i < 40; i++) sessions[`s${i}`] = { seq, record: randomBytes(1024) }
    const batch = { session: sessions, 'pre-key': { [`p${seq}`]: { seq }, [`p${seq - 1}`]: null } }
    writes.push(store.setKeys(batch), store.writeCreds({ seq, noise: randomBytes(32) }))
  }
  if (seq % 4 === 0) await Promise.all(writes)
  if (!announced && seq >= announceAt) {
    await Promise.all(writes)
    await Promise.all(stores.map((store) => store.committed()))
    process.stdout.write('writing\n')
    announced = true
  }
}
