import { createHash } from 'node:crypto'
import { createReadStream, existsSync, readdirSync } from 'node:fs'
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { open } from 'lmdb'
import type { RootDatabase } from './database'
import { LmdbEventStore } from './events'
import { MessageEventIndex } from './message-event-index'
import { LmdbMessageStore } from './messages'

/** What `manifest.json` of a backup says it is. */
export const BACKUP_FORMAT = 'linkdesk-data-backup'
const FORMAT_VERSION = 1
const MANIFEST = 'manifest.json'
/** The event journal's two files (events/event-journal.ts): `events.journal` and `events.journal.1`. */
const JOURNAL = 'events.journal'

/**
 * A data folder's parts, in the order they are copied (uploads waiting to be sent are short-lived and left
 * out, as is the list of webhook posts under way). Each LMDB environment is copied by LMDB itself from one
 * read transaction, so it is consistent while the server writes. The event journal (events emitted but not
 * committed to `db/` yet; the first start on the restored folder writes what `db/` lacks, as after a crash)
 * is read before and after `db/` is copied: an event still uncommitted when `db/` is copied is in the second
 * reading unless it was committed (and left the journal) in between, as if emitted just after the backup. A
 * message stored in the copy is announced by an event, so a copy that holds a message but missed its event
 * (or the other way round) is found by comparing the two, and made again (`racedAnnouncements`). The
 * credentials come after the events, so that the keys are the newest the backup can hold. Media files are
 * written aside and renamed into place, so a copied one is always whole; files still being written (`*.tmp`)
 * are left out.
 */
const PARTS: readonly Part[] = [
  { kind: 'file', path: 'config.json' },
  { kind: 'journal', path: JOURNAL },
  { kind: 'lmdb', path: 'db' },
  { kind: 'journal', path: JOURNAL },
  { kind: 'folder', path: 'media' },
  { kind: 'lmdb', path: 'auth' },
  // The embedded sandbox's simulated network (`--sandbox`), so that its accounts know the restored devices.
  { kind: 'lmdb', path: 'sandbox' },
]
/** Copies whose stored messages and events did not match (a commit between two readings) made again. */
const ATTEMPTS = 5

type Part = { kind: 'file' | 'folder' | 'lmdb' | 'journal'; path: string }

/** One file of a backup: its path inside the backup (with `/`), its size and its SHA-256. */
export interface BackupFile {
  path: string
  bytes: number
  sha256: string
}

/** `manifest.json`: what the backup is, when and from where it was made, and every file's checksum. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  format_version: number
  app_version: string
  created_at: string
  data_dir: string
  files: BackupFile[]
}

/** A backup or a restore refused (with what to do instead); nothing was written where it was to go. */
export class BackupError extends Error {
  override readonly name = 'BackupError'
}

/**
 * Copies the data folder `dataDir` (its embedded store: settings, credentials, events, messages and media),
 * consistently even while a server runs on it, into the new folder `to`, with a manifest of checksums.
 * The backup is made beside `to` and renamed into place once complete: `to` never holds half a backup.
 */
export async function backupDataFolder(
  dataDir: string,
  to: string,
  options: { appVersion: string; now?: () => Date },
): Promise<BackupManifest> {
  const source = resolve(dataDir)
  const target = resolve(to)
  if (!existsSync(join(source, 'db'))) {
    throw new BackupError(
      `${source} holds no embedded store (no db folder): give the data folder of a server that runs without ` +
        '--store. A node on PostgreSQL keeps its data in the database: back it up with pg_dump.',
    )
  }
  if (target === source || target.startsWith(source + sep))
    throw new BackupError(
      `the backup cannot go inside the data folder ${source}: choose a folder outside it.`,
    )
  refuseUnlessEmpty(target, 'the backup goes into a new or empty folder')
  const staging = besideOf(target, 'partial')
  try {
    const createdAt = (options.now ?? (() => new Date()))()
    await copyMatching(source, staging)
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: FORMAT_VERSION,
      app_version: options.appVersion,
      created_at: createdAt.toISOString(),
      data_dir: source,
      files: await describeFiles(staging),
    }
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
    await placeFolder(staging, target, 'the backup')
    return manifest
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/**
 * Restores the backup in `from` into `dataDir`, which must be new or empty (so never a folder a server runs
 * on): every file is checked against the manifest first, and a backup that fails any check is refused whole.
 * The restored folder is assembled beside `dataDir` and renamed into place, so `dataDir` gets all or nothing.
 */
export async function restoreDataFolder(from: string, dataDir: string): Promise<BackupManifest> {
  const backup = resolve(from)
  const target = resolve(dataDir)
  const manifest = await readManifest(backup)
  await verifyFiles(backup, manifest.files, 'the backup')
  refuseUnlessEmpty(target, 'a backup is restored only into a new or empty folder')
  const staging = besideOf(target, 'restoring')
  try {
    await mkdir(staging, { recursive: true, mode: 0o700 })
    for (const file of manifest.files) {
      const path = join(staging, file.path)
      await mkdir(dirname(path), { recursive: true, mode: 0o700 })
      await copyFile(join(backup, file.path), path)
      await chmod(path, 0o600)
    }
    await verifyFiles(staging, manifest.files, 'the restored copy')
    await placeFolder(staging, target, 'the restored data folder')
    return manifest
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** Copies the parts into `staging` until a copy's stored messages and their events match. */
async function copyMatching(source: string, staging: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await rm(staging, { recursive: true, force: true })
    await mkdir(staging, { recursive: true, mode: 0o700 })
    const journal = new Set<string>()
    for (const part of PARTS) await copyPart(source, staging, part, journal)
    await writeFile(join(staging, JOURNAL), [...journal].join(''), { mode: 0o600 })
    const raced = await racedAnnouncements(source, staging, journal)
    if (raced === 0) return
    if (attempt === ATTEMPTS) {
      throw new BackupError(
        `${ATTEMPTS} copies in a row caught ${raced} message(s) stored but not announced yet (or the other way ` +
          'round); nothing was written. Try again.',
      )
    }
  }
}

async function copyPart(source: string, staging: string, part: Part, journal: Set<string>): Promise<void> {
  const from = join(source, part.path)
  const to = join(staging, part.path)
  if (part.kind === 'journal') {
    for (const file of [from, `${from}.1`]) for (const line of await journalLines(file)) journal.add(line)
    return
  }
  if (!existsSync(from)) return
  switch (part.kind) {
    case 'lmdb': {
      await mkdir(to, { recursive: true, mode: 0o700 })
      const env = open({ path: from, readOnly: true, maxDbs: 32 })
      try {
        await env.backup(to, false)
      } finally {
        await env.close()
      }
      return
    }
    case 'file':
      await copyIfThere(from, to)
      return
    case 'folder':
      await copyFolder(from, to)
      return
  }
}

/** The journal file's complete records (a line being written, or left torn by a kill, is not one). */
async function journalLines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return ''
    throw error
  })
  const lines = text.split('\n').slice(0, -1)
  return lines.filter((line) => isJson(line)).map((line) => `${line}\n`)
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line)
    return true
  } catch {
    return false
  }
}

/**
 * How many messages the copy holds without their event, or announces without holding them, while the
 * server's store has both: their two commits fell on either side of the copy of `db/`.
 */
async function racedAnnouncements(source: string, staging: string, journal: Set<string>): Promise<number> {
  if (!existsSync(join(staging, 'db'))) return 0
  const journaled = new Set<string>()
  for (const line of journal) {
    const record = JSON.parse(line) as {
      messageId?: string
      stored?: { envelope?: { instance_id?: string } }
    }
    const instanceId = record.stored?.envelope?.instance_id
    if (record.messageId !== undefined && instanceId !== undefined)
      journaled.add(keyOf(instanceId, record.messageId))
  }
  const copy = openStoreReadOnly(staging)
  const live = openStoreReadOnly(source)
  try {
    const copied = { events: new LmdbEventStore(copy), messages: new LmdbMessageStore(copy, staging) }
    const server = { events: new LmdbEventStore(live), messages: new LmdbMessageStore(live, source) }
    let raced = 0
    const stored = new Set<string>()
    for (const { instanceId, stored: message } of copied.messages.export()) {
      const id = message.message.id
      stored.add(keyOf(instanceId, id))
      if (journaled.has(keyOf(instanceId, id))) continue
      if ((await copied.events.eventOfMessage(instanceId, id)) !== undefined) continue
      if ((await server.events.eventOfMessage(instanceId, id)) !== undefined) raced++
    }
    const announced = [...new MessageEventIndex(copy).all()].map((e) => keyOf(e.instanceId, e.messageId))
    for (const key of [...journaled, ...announced]) {
      if (stored.has(key)) continue
      const [instanceId = '', id = ''] = key.split('\u0000')
      if ((await server.messages.get(instanceId, id)) !== undefined) raced++
    }
    return raced
  } finally {
    await copy.close()
    await live.close()
    await rm(join(staging, 'db', 'lock.mdb'), { force: true })
  }
}

/** A data folder's `db/` as `openDatabase` opens it, for reading only. */
function openStoreReadOnly(dataDir: string): RootDatabase {
  return open({
    path: join(dataDir, 'db'),
    readOnly: true,
    maxDbs: 32,
    compression: false,
    encoding: 'msgpack',
  })
}

function keyOf(instanceId: string, messageId: string): string {
  return `${instanceId}\u0000${messageId}`
}

async function copyFolder(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true, mode: 0o700 })
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyFolder(join(from, entry.name), join(to, entry.name))
    else if (entry.isFile() && !entry.name.endsWith('.tmp'))
      await copyIfThere(join(from, entry.name), join(to, entry.name))
  }
}

/** Copies a file unless it went away meanwhile (a retention sweep, an instance destroyed). */
async function copyIfThere(from: string, to: string): Promise<void> {
  try {
    await copyFile(from, to)
    await chmod(to, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/** Every file under `root` but the manifest, with its size and checksum, in path order. */
async function describeFiles(root: string, under = ''): Promise<BackupFile[]> {
  const files: BackupFile[] = []
  const entries = await readdir(join(root, under), { withFileTypes: true })
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = under ? `${under}/${entry.name}` : entry.name
    if (entry.isDirectory()) files.push(...(await describeFiles(root, path)))
    // LMDB's lock file is made again by whoever opens the environment.
    else if (path !== MANIFEST && entry.name !== 'lock.mdb') files.push(await describeFile(root, path))
  }
  return files
}

async function describeFile(root: string, path: string): Promise<BackupFile> {
  const full = join(root, path)
  const hash = createHash('sha256')
  await pipeline(createReadStream(full), hash)
  return { path, bytes: (await stat(full)).size, sha256: hash.digest('hex') }
}

async function readManifest(backup: string): Promise<BackupManifest> {
  let text: string
  try {
    text = await readFile(join(backup, MANIFEST), 'utf8')
  } catch {
    throw new BackupError(`${backup} is not a Linkdesk backup (no ${MANIFEST}); nothing was restored.`)
  }
  let manifest: Partial<BackupManifest>
  try {
    manifest = JSON.parse(text) as Partial<BackupManifest>
  } catch {
    throw new BackupError(`${join(backup, MANIFEST)} is damaged (not JSON); nothing was restored.`)
  }
  if (manifest.format !== BACKUP_FORMAT || !Array.isArray(manifest.files))
    throw new BackupError(
      `${join(backup, MANIFEST)} is not a Linkdesk backup manifest; nothing was restored.`,
    )
  if (manifest.format_version !== FORMAT_VERSION) {
    throw new BackupError(
      `${backup} is a backup of format ${String(manifest.format_version)}; this version restores format ` +
        `${FORMAT_VERSION} only. Nothing was restored.`,
    )
  }
  for (const file of manifest.files) {
    if (!isInside(file.path))
      throw new BackupError(
        `the manifest names a file outside the backup (${file.path}); nothing was restored.`,
      )
  }
  return manifest as BackupManifest
}

/** A manifest path stays inside the folder: relative, no `..`, not the manifest itself. */
function isInside(path: unknown): boolean {
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || path === MANIFEST) return false
  const normal = normalize(path)
  return normal === path.split('/').join(sep) && !normal.split(sep).includes('..')
}

async function verifyFiles(root: string, files: readonly BackupFile[], what: string): Promise<void> {
  const damaged: string[] = []
  for (const expected of files) {
    const found = await describeFile(root, expected.path).catch(() => undefined)
    if (!found) damaged.push(`${expected.path} is missing`)
    else if (found.bytes !== expected.bytes || found.sha256 !== expected.sha256)
      damaged.push(`${expected.path} does not match its checksum`)
  }
  if (damaged.length === 0) return
  const shown =
    damaged.slice(0, 5).join('; ') + (damaged.length > 5 ? `; and ${damaged.length - 5} more` : '')
  throw new BackupError(`${what} in ${root} is damaged: ${shown}. Nothing was restored.`)
}

function refuseUnlessEmpty(folder: string, rule: string): void {
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  if (names.length === 0) return
  const inUse = names.includes('db') || names.includes('config.json')
  throw new BackupError(
    `${folder} is not empty${inUse ? ' (it is a data folder: a server may be running on it)' : ''}: ${rule}. ` +
      'Nothing was changed.',
  )
}

/** A folder beside `target` (same file system, so a rename moves it), for this process only. */
function besideOf(target: string, purpose: string): string {
  return join(dirname(target), `.${basename(target)}.${purpose}-${process.pid}`)
}

/** Renames the complete folder onto `target`; fails, changing nothing, if `target` got contents meanwhile. */
async function placeFolder(staging: string, target: string, what: string): Promise<void> {
  try {
    await rename(staging, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOTEMPTY' || code === 'EEXIST')
      throw new BackupError(
        `${target} was written to meanwhile: ${what} was not put there. Nothing was changed.`,
      )
    throw error
  }
}
