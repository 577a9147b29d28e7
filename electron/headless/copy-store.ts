import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { ConfigError } from '../core/config'
import { createLogger } from '../core/logger'
import { copyToPostgres } from '../core/store/postgres/copy-from-lmdb'
import { APP_VERSION } from '../core/version'
import { COPY_STORE_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const settings = settingsOrExit(COPY_STORE_COMMAND, APP_VERSION, ({ dataDir, to }) => {
  if (!to) throw new ConfigError('--to is required: the postgres:// URL of the database to copy into.')
  const dir = resolve(dataDir)
  if (!existsSync(join(dir, 'db')))
    throw new ConfigError(`${dir} holds no Linkdesk store (no db folder): give the app's --data-dir.`)
  return { dataDir: dir, to }
})

copyToPostgres(settings.dataDir, settings.to, createLogger('info')).then(
  (count) => {
    process.stdout.write(`Copied into PostgreSQL: ${JSON.stringify(count)}\n`)
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`linkdesk copy-store: ${(error as Error).message}\n`)
    process.exit(1)
  },
)
