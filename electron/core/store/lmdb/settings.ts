import Conf from 'conf'
import { CachedSettingsStore } from '../cached-settings-store'
import type { AllSettings, SettingsKind, SettingsRecords } from '../settings-store'

/**
 * The settings store of one data folder: one JSON file (`config.json`), written atomically by `conf`, the
 * library `electron-store` is built on, so the desktop app and the headless server read and write the same
 * format. The file is readable by the user only. This process is its only writer, so reads come from the
 * copy in memory (conf itself would read and parse the file on every access).
 */
export class FileSettingsStore extends CachedSettingsStore {
  private readonly conf: Conf<AllSettings>

  constructor(dataDir: string) {
    const conf = new Conf<AllSettings>({
      cwd: dataDir,
      configName: 'config',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      defaults: { tokens: {}, instances: {}, webhooks: {} },
    })
    super({
      tokens: conf.get('tokens'),
      instances: conf.get('instances'),
      webhooks: conf.get('webhooks') ?? {},
    })
    this.conf = conf
  }

  protected persist<K extends SettingsKind>(kind: K, { next }: { next: Record<string, SettingsRecords[K]> }) {
    this.conf.set(kind, next as AllSettings[K])
  }
}
