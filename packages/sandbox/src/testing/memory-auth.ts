import {
  initAuthCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
} from '@whiskeysockets/baileys'

type KeyType = keyof SignalDataTypeMap

/** Baileys credentials and Signal keys in memory, for tests: what a store does, minus the disk. */
export interface MemoryAuth {
  state: AuthenticationState
  /** Drops every Signal session with the given address prefix (e.g. a contact's LID user), as after data loss. */
  deleteSessions(prefix: string): number
  /** The keys as they are now: calling the result puts them back, as after a crash that lost later writes. */
  restorePoint(): () => void
}

export function createMemoryAuth(): MemoryAuth {
  const data = new Map<KeyType, Map<string, unknown>>()
  const table = (type: KeyType): Map<string, unknown> => {
    let entries = data.get(type)
    if (!entries) {
      entries = new Map()
      data.set(type, entries)
    }
    return entries
  }
  const state: AuthenticationState = {
    creds: initAuthCreds(),
    keys: {
      get: async <T extends KeyType>(type: T, ids: string[]) => {
        const entries = table(type)
        const found: { [id: string]: SignalDataTypeMap[T] } = {}
        for (const id of ids) {
          const value = entries.get(id)
          if (value !== undefined) found[id] = value as SignalDataTypeMap[T]
        }
        return found
      },
      set: async (set: SignalDataSet) => {
        for (const [type, values] of Object.entries(set) as Array<[KeyType, Record<string, unknown>]>) {
          const entries = table(type)
          for (const [id, value] of Object.entries(values)) {
            if (value === null || value === undefined) entries.delete(id)
            else entries.set(id, value)
          }
        }
      },
    },
  }
  return {
    state,
    deleteSessions(prefix) {
      const sessions = table('session')
      let deleted = 0
      for (const id of [...sessions.keys()]) {
        if (id.startsWith(prefix)) {
          sessions.delete(id)
          deleted++
        }
      }
      return deleted
    },
    restorePoint() {
      const saved = [...data].map(([type, entries]) => [type, new Map(entries)] as const)
      return () => {
        data.clear()
        for (const [type, entries] of saved) data.set(type, entries)
      }
    },
  }
}
