import {
  type AuthenticationCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
  initAuthCreds,
  proto,
} from '@whiskeysockets/baileys'
import type { WaLidPair } from '../contract/network'
import type { InstanceAuthStore } from '../store/auth-store'

/** An instance's Baileys auth state over its durable store, and how to persist its creds. */
export interface WaAuthState {
  state: AuthenticationState
  /** Saves the whole creds object; call on every `creds.update` (Baileys merged the update into it already). */
  saveCreds(): Promise<void>
  /** Holds the durability of every write from now on until the returned function is called (see the store). */
  holdKeyWrites(): (kept?: boolean) => void
  /** The store it is over (whether it is still usable, whether its holds and commits have settled). */
  readonly store: InstanceAuthStore
}

/**
 * Key types whose values Baileys only reads (libsignal deserializes sessions and sender keys into new
 * objects; identity keys, LID mappings and tokens are compared or copied; app-state keys are converted below
 * into new objects), so reads may share one cached decoded value. Baileys changes device lists and
 * sender-key memory in place, app-state versions are large, and a pre-key is read once before it is deleted:
 * those are decoded afresh on every read.
 */
const READ_ONLY_TYPES: ReadonlySet<string> = new Set<keyof SignalDataTypeMap>([
  'session',
  'sender-key',
  'identity-key',
  'lid-mapping',
  'tctoken',
  'app-state-sync-key',
])

/**
 * The pairs in a write of Baileys' `lid-mapping` keys: it keeps each as `<phone user>` → `<lid user>` (and
 * the reverse under `<lid user>_reverse`), whichever way it learned it (a message's envelope, a group
 * notification, the app state, a USync query).
 */
function lidPairsOf(data: SignalDataSet): WaLidPair[] {
  return Object.entries(data['lid-mapping'] ?? {}).flatMap(([user, lid]) =>
    !user.endsWith('_reverse') && typeof lid === 'string' && lid !== ''
      ? [{ lid: `${lid}@lid`, phone: `${user}@s.whatsapp.net` }]
      : [],
  )
}

/** Whether a write of Baileys' keys stores new pre-keys (not only deletes used ones). */
function addsPreKeys(data: SignalDataSet): boolean {
  return Object.values(data['pre-key'] ?? {}).some((value) => value !== null && value !== undefined)
}

/**
 * Loads the stored creds (or makes fresh, unlinked ones) and wraps the store as Baileys' SignalKeyStore;
 * `onWaLidPairs` hears of every LID ↔ phone pair Baileys keeps, as it keeps it.
 */
export function loadWaAuthState(
  store: InstanceAuthStore,
  onWaLidPairs?: (pairs: WaLidPair[]) => void,
): WaAuthState {
  const creds = store.readCreds<AuthenticationCreds>() ?? initAuthCreds()
  const state: AuthenticationState = {
    creds,
    keys: {
      get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
        const readOnly = READ_ONLY_TYPES.has(type)
        const found = (await store.getKeys(type, ids, { readOnly })) as Record<string, SignalDataTypeMap[T]>
        if (type === 'app-state-sync-key') {
          for (const [id, value] of Object.entries(found)) {
            found[id] = proto.Message.AppStateSyncKeyData.fromObject(
              value as object,
            ) as unknown as SignalDataTypeMap[T]
          }
        }
        return found
      },
      set: async (data: SignalDataSet) => {
        const written = store.setKeys(data as Record<string, Record<string, unknown>>)
        const pairs = onWaLidPairs ? lidPairsOf(data) : []
        if (pairs.length > 0) onWaLidPairs?.(pairs)
        await written
        // Baileys uploads new pre-keys once this resolves, and the network then hands them to whoever opens a
        // session: uploaded before they are durable (a kill, or a write refused to a node that lost the
        // instance), every such session's first message fails to decrypt on whichever node runs it next.
        if (addsPreKeys(data)) await store.durable()
      },
    },
  }
  return { state, store, saveCreds: () => store.writeCreds(creds), holdKeyWrites: () => store.holdWrites() }
}

/** Whether creds belong to a completed link (pairing finished), not just a fresh or half-paired identity. */
export function isLinked(creds: AuthenticationCreds): boolean {
  return Boolean(creds.me?.id && creds.account)
}
