import {
  initAuthCreds,
  type AuthenticationCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
} from '@whiskeysockets/baileys'

type KeyType = keyof SignalDataTypeMap

/** What a raw process saves of an account: creds and every key, by type and id. */
export interface SavedAuth {
  creds: AuthenticationCreds
  keys: Record<string, Record<string, unknown>>
}

/** Credentials and Signal keys in plain objects, as a bare Baileys process keeps them; saveable. */
export function createRawAuth(saved?: SavedAuth): { state: AuthenticationState; save(): SavedAuth } {
  const keys: Record<string, Record<string, unknown>> = saved?.keys ?? {}
  const state: AuthenticationState = {
    creds: saved?.creds ?? initAuthCreds(),
    keys: {
      get: async <T extends KeyType>(type: T, ids: string[]) => {
        const table = keys[type] ?? {}
        const found: { [id: string]: SignalDataTypeMap[T] } = {}
        for (const id of ids) {
          const value = table[id]
          if (value !== undefined) found[id] = value as SignalDataTypeMap[T]
        }
        return found
      },
      set: async (set: SignalDataSet) => {
        for (const [type, values] of Object.entries(set)) {
          const table = (keys[type] ??= {})
          for (const [id, value] of Object.entries(values ?? {})) {
            if (value === null || value === undefined) delete table[id]
            else table[id] = value
          }
        }
      },
    },
  }
  return { state, save: () => ({ creds: state.creds, keys }) }
}
