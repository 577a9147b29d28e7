import {
  closeSync,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs'
import type { StoredEvent, OutboxEntry } from '../store/event-store'

/**
 * What emit writes down: the event, its outbox entry if its webhook is on (and those of added webhooks), and
 * the network message it announces.
 */
export interface JournalRecord {
  stored: StoredEvent
  outbox?: OutboxEntry
  /** Its entries in the queues of added webhooks that take it. */
  extra?: ExtraDelivery[]
  messageId?: string
}

/** An event's entry in the queue of one added webhook. */
export interface ExtraDelivery {
  /** The webhook's queue key (`webhook:<id>`). */
  queue: string
  queueId: string
  entry: OutboxEntry
}

interface JournalFile {
  fd: number
  bytes: number
}

/**
 * The journal that makes emit durable at the cost of one write(2): each event is appended to a plain file
 * before emit returns (the kernel keeps it if the process dies, kill -9 included), while LMDB commits it
 * asynchronously in batches on its own thread, off the event loop. A file is emptied once everything written
 * to it is committed to LMDB; two files take turns so that one can wait for that while the other is written.
 * At start, events found in the files but not in LMDB are written there first (see EventService).
 */
export class EventJournal {
  private readonly files: [JournalFile, JournalFile]
  private active: 0 | 1 = 0
  private draining = false
  /** A commit failed: nothing is emptied any more, so the next start writes every record to LMDB. */
  private kept = false

  /**
   * Opens the journal empty: read what the previous run left first (EventJournal.read). Beyond `rotateBytes`
   * a file is swapped for the other one, so that the journal stays small under steady load.
   */
  private readonly rotateBytes: number
  private readonly fsync: boolean

  constructor(path: string, options: { rotateBytes?: number; fsync?: boolean } = {}) {
    this.rotateBytes = options.rotateBytes ?? 4 * 1024 * 1024
    this.fsync = options.fsync ?? false
    this.files = [open(path), open(`${path}.1`)]
  }

  /** The records a previous run left in the journal at `path` (a torn last line, if any, is ignored). */
  static read(path: string): JournalRecord[] {
    return [...readFile(path), ...readFile(`${path}.1`)].sort((a, b) =>
      a.stored.envelope.event_id < b.stored.envelope.event_id ? -1 : 1,
    )
  }

  /** Appends one record; returns once the kernel has it (with fsync: once the disk has it). */
  append(record: JournalRecord): void {
    const file = this.files[this.active]
    file.bytes += writeSync(file.fd, `${JSON.stringify(record)}\n`)
    if (this.fsync) fdatasyncSync(file.fd)
  }

  /** Everything appended so far is committed to LMDB: both files are emptied. */
  clear(): void {
    if (this.kept) return
    for (const file of this.files) truncate(file)
  }

  /**
   * A commit to LMDB failed: from now on the files are never emptied in this run, so whatever did not commit
   * is still here for the next start to write (it writes only what LMDB lacks).
   */
  keep(): void {
    this.kept = true
  }

  /**
   * If the file being written is large, writes go to the other one from now on, and the full one is
   * emptied once `committed` (the commit of every write made so far) resolves.
   */
  rotate(committed: Promise<unknown>): void {
    const full = this.files[this.active]
    if (this.draining || full.bytes < this.rotateBytes) return
    this.draining = true
    this.active = this.active === 0 ? 1 : 0
    void committed.finally(() => {
      if (!this.kept) truncate(full)
      this.draining = false
    })
  }

  close(): void {
    for (const file of this.files) closeSync(file.fd)
  }
}

function open(path: string): JournalFile {
  const fd = openSync(path, 'a', 0o600)
  ftruncateSync(fd, 0)
  return { fd, bytes: 0 }
}

function truncate(file: JournalFile): void {
  if (file.bytes === 0) return
  ftruncateSync(file.fd, 0)
  file.bytes = 0
}

function readFile(path: string): JournalRecord[] {
  if (!existsSync(path)) return []
  const records: JournalRecord[] = []
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue
    try {
      records.push(JSON.parse(line) as JournalRecord)
    } catch {
      // only the last line can be torn (the process died inside write(2)); its emit never returned
    }
  }
  return records
}
