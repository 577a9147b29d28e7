// Child process for the crash test: writes key batches and creds as fast as it can until it is killed.
import { randomBytes } from 'node:crypto'
import { InstanceAuthStore } from '../auth-store'

const dir = process.argv[2]
if (!dir) throw new Error('usage: auth-store-writer <dir>')
const store = InstanceAuthStore.open(dir)
let seq = store.readCreds<{ seq: number }>()?.seq ?? 0
let announced = false

for (;;) {
  seq += 1
  const sessions: Record<string, unknown> = {}
  for (let i = 0; i < 40; i++) sessions[`s${i}`] = { seq, record: randomBytes(1024) }
  const batch = { session: sessions, 'pre-key': { [`p${seq}`]: { seq }, [`p${seq - 1}`]: null } }
  const keys = store.setKeys(batch)
  const creds = store.writeCreds({ seq, noise: randomBytes(32) })
  if (seq % 4 === 0) await Promise.all([keys, creds])
  if (!announced) {
    await creds
    await store.committed()
    process.stdout.write('writing\n')
    announced = true
  }
}
