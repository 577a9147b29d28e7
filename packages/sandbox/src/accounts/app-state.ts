import { randomBytes } from 'node:crypto'
import { decodeSyncdMutations, newLTHashState, proto } from '@whiskeysockets/baileys'

/** What the network keeps of an account's app state: the phone's sync key and each collection's patches. */
export interface AppStateRecord {
  /** base64 */
  keyId: string
  /** base64 */
  keyData: string
  /** Per collection, its patches as sent (base64 SyncdPatch), version n at index n - 1. */
  patches: Record<string, string[]>
}

/** A setting a patch changed that the network itself acts on. */
export type AppStateChange = { kind: 'push_name'; name: string }

export function newAppStateRecord(): AppStateRecord {
  return {
    keyId: randomBytes(6).toString('base64'),
    keyData: randomBytes(32).toString('base64'),
    patches: {},
  }
}

/**
 * An account's app state as the server keeps it: patches are opaque to the real server (it stores and hands
 * them to the account's other devices); the sandbox also reads them with the phone's key, to apply what the
 * network shows others (the display name).
 */
export class AppState {
  constructor(
    private readonly record: AppStateRecord,
    private readonly save: () => void,
  ) {}

  get key(): { id: Buffer; data: Buffer } {
    return { id: Buffer.from(this.record.keyId, 'base64'), data: Buffer.from(this.record.keyData, 'base64') }
  }

  version(collection: string): number {
    return this.record.patches[collection]?.length ?? 0
  }

  /** The patches after `version`, each carrying its own version. */
  patchesAfter(collection: string, version: number): Buffer[] {
    return (this.record.patches[collection] ?? []).slice(version).map((patch) => Buffer.from(patch, 'base64'))
  }

  /**
   * Keeps a device's patch as the collection's next version and answers the settings it changed. A patch
   * under another key, or one that cannot be read, is refused (Error) and nothing is kept.
   */
  async apply(collection: string, encoded: Uint8Array): Promise<AppStateChange[]> {
    const patch = proto.SyncdPatch.decode(encoded)
    const key = this.key
    const changes: AppStateChange[] = []
    await decodeSyncdMutations(
      patch.mutations ?? [],
      newLTHashState(),
      async (keyId) =>
        keyId === this.record.keyId
          ? proto.Message.AppStateSyncKeyData.fromObject({ keyData: key.data })
          : null,
      ({ syncAction }) => {
        const name = syncAction.value?.pushNameSetting?.name
        if (name) changes.push({ kind: 'push_name', name })
      },
      true,
    )
    const list = (this.record.patches[collection] ??= [])
    patch.version = { version: list.length + 1 }
    list.push(Buffer.from(proto.SyncdPatch.encode(patch).finish()).toString('base64'))
    this.save()
    return changes
  }
}
