// Runs a command with a throwaway PostgreSQL cluster (see electron/core/testing/postgres-server.ts) and
// the test fixtures switched to it: LINKDESK_TEST_STORE=postgres, LINKDESK_TEST_PG_URL=<the cluster>.
//   node --import tsx scripts/with-postgres.ts <command> [args…]
import { spawnSync } from 'node:child_process'
import { postgresMissing, startPostgres } from '../electron/core/testing/postgres-server'

const [command, ...args] = process.argv.slice(2)
if (!command) throw new Error('usage: with-postgres <command> [args…]')
const missing = postgresMissing()
if (missing) {
  process.stderr.write(`skipping the PostgreSQL pass: ${missing}\n`)
  process.exit(0)
}
const server = await startPostgres()
let status = 1
try {
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, LINKDESK_TEST_STORE: 'postgres', LINKDESK_TEST_PG_URL: server.url },
  })
  status = result.status ?? 1
} finally {
  server.stop()
}
process.exit(status)
