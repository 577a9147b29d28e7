import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'

/**
 * Every entry (key and stored bytes, encrypted or not) of a per-instance auth environment as earlier versions
 * wrote it, in `instances/<id>/auth`. A folder without an LMDB data file has none.
 */
export function readLegacyAuth(dir: string): Array<[string, Buffer]> {
  if (!existsSync(join(dir, 'data.mdb'))) return []
  const db = open<Buffer, string>({ path: dir, encoding: 'binary', compression: false, readOnly: true })
  try {
    // A long `<type>\0<id>` key reads back as [type, id] (lmdb escapes NUL in short keys only).
    return [...db.getRange()].map(({ key, value }) => [
      Array.isArray(key) ? key.join('\u0000') : key,
      Buffer.from(value),
    ])
  } finally {
    void db.close()
  }
}
