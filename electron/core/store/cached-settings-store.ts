import type {
  AllSettings,
  RecordsOf,
  SettingsEdit,
  SettingsKind,
  SettingsRecords,
  SettingsStore,
} from './settings-store'

/**
 * A settings store that reads from its copy in memory and runs changes one at a time: each edit sees the
 * records as the last change left them, and the copy changes only once `persist` made the change durable.
 */
export abstract class CachedSettingsStore implements SettingsStore {
  private queue: Promise<unknown> = Promise.resolve()

  protected constructor(private readonly cache: AllSettings) {}

  all<K extends SettingsKind>(kind: K): RecordsOf<K> {
    return this.cache[kind]
  }

  change<K extends SettingsKind, T>(
    kind: K,
    edit: (current: RecordsOf<K>) => SettingsEdit<K, T>,
  ): Promise<T> {
    const run = this.queue.then(async () => {
      const { put = [], remove = [], result, of } = edit(this.cache[kind])
      if (put.length + remove.length === 0) return result
      const next: Record<string, SettingsRecords[K]> = { ...this.cache[kind] }
      for (const id of remove) delete next[id]
      for (const record of put) next[record.id] = record
      await this.persist(kind, { next, put, remove, of })
      this.cache[kind] = next as AllSettings[K]
      return result
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  async reload(_kind: SettingsKind): Promise<void> {}

  async reloadRecord(_kind: SettingsKind, _id: string): Promise<void> {}

  /** Replaces the copy of a kind by what `read` gives, in turn with the changes (another writer changed it). */
  protected refresh<K extends SettingsKind>(kind: K, read: () => Promise<AllSettings[K]>): Promise<void> {
    const run = this.queue.then(async () => {
      this.cache[kind] = await read()
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Replaces one record of the copy by what `read` gives (undefined: it is gone), in turn with the changes. */
  protected refreshRecord<K extends SettingsKind>(
    kind: K,
    id: string,
    read: () => Promise<SettingsRecords[K] | undefined>,
  ): Promise<void> {
    const run = this.queue.then(async () => {
      const record = await read()
      const next: Record<string, SettingsRecords[K]> = { ...this.cache[kind] }
      if (record === undefined) delete next[id]
      else next[id] = record
      this.cache[kind] = next as AllSettings[K]
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Makes one change durable: the kind's records as they are now, and what was put and removed. */
  protected abstract persist<K extends SettingsKind>(
    kind: K,
    change: {
      next: Record<string, SettingsRecords[K]>
      put: Array<SettingsRecords[K]>
      remove: string[]
      /** The instance whose own write this is (SettingsEdit.of). */
      of: string | undefined
    },
  ): Promise<void> | void
}
