import { ConfigError } from '../core/config'
import { APP_VERSION, backupDataFolder } from '../core'
import { BACKUP_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const settings = settingsOrExit(BACKUP_COMMAND, APP_VERSION, ({ dataDir, to }) => {
  if (!to) throw new ConfigError('--to is required: the new folder to write the backup into.')
  return { dataDir, to }
})

backupDataFolder(settings.dataDir, settings.to, { appVersion: APP_VERSION }).then(
  (manifest) => {
    const bytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0)
    process.stdout.write(
      `Backed up ${manifest.data_dir} into ${settings.to}: ${manifest.files.length} files, ${bytes} bytes, ` +
        `at ${manifest.created_at}\n`,
    )
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`linkdesk backup: ${(error as Error).message}\n`)
    process.exit(1)
  },
)
