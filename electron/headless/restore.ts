import { ConfigError } from '../core/config'
import { APP_VERSION, restoreDataFolder } from '../core'
import { RESTORE_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const settings = settingsOrExit(RESTORE_COMMAND, APP_VERSION, ({ from, dataDir }) => {
  if (!from) throw new ConfigError('--from is required: the backup folder to restore.')
  if (!dataDir) throw new ConfigError('--data-dir is required: the new data folder to restore into.')
  return { from, dataDir }
})

restoreDataFolder(settings.from, settings.dataDir).then(
  (manifest) => {
    process.stdout.write(
      `Restored the backup of ${manifest.created_at} (Linkdesk ${manifest.app_version}, ` +
        `${manifest.files.length} files, checksums verified) into ${settings.dataDir}\n`,
    )
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`linkdesk restore: ${(error as Error).message}\n`)
    process.exit(1)
  },
)
