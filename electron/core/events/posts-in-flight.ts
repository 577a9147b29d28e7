import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs'

/**
 * Where posts under way are marked: `starting` before each POST answers the entries whose previous post was
 * still under way when its node stopped (the receiver may have it); `settled` once a post's outcome is
 * committed, `requeued` when it kept the entry for a retry.
 */
export interface PostMarks {
  starting(queue: string, queueIds: readonly string[]): Promise<Set<string>>
  settled(queueId: string, requeued: boolean): void
}

/**
 * Which webhook posts are under way, in a small file: `+<queue id>` when a post starts. A post still open
 * when the app was killed may have reached the receiver (it answered 2xx, the outbox removal never committed),
 * so the next run counts its post of that entry as a re-post: webhooks are at least once, and receivers
 * deduplicate by event id. An entry whose outcome removed it from the outbox is never posted again, so its
 * line needs no closing; one kept for a retry is closed with `-<queue id>` once that outcome is committed.
 * One write(2) per line, no fsync: like the event journal, it survives a killed process. The file is emptied
 * when no post is under way and it has grown past a few pages.
 */
/** Past this size the file is emptied at the next moment no post is under way. */
const TRUNCATE_BYTES = 16 * 1024

export class PostsInFlight {
  private readonly fd: number
  /** Queue ids whose post was under way when the previous run stopped. */
  private readonly leftOver: Set<string>
  private open = 0
  private bytes = 0
  private closed = false

  constructor(path: string) {
    this.leftOver = readOpen(path)
    this.fd = openSync(path, 'a', 0o600)
    ftruncateSync(this.fd, 0)
  }

  /** A post of this entry starts; true when it repeats one under way when the previous run stopped. */
  starting(queueId: string): boolean {
    if (this.closed) return false
    this.bytes += writeSync(this.fd, `+${queueId}\n`)
    this.open += 1
    return this.leftOver.delete(queueId)
  }

  /** The post's outcome is committed; `requeued` when it kept the entry in the outbox for a retry. */
  settled(queueId: string, requeued: boolean): void {
    // After close an outcome may still commit; its line stays open, and the next run counts its post.
    if (this.closed) return
    if (requeued) this.bytes += writeSync(this.fd, `-${queueId}\n`)
    this.open -= 1
    if (this.open === 0 && this.bytes >= TRUNCATE_BYTES) {
      ftruncateSync(this.fd, 0)
      this.bytes = 0
    }
  }

  close(): void {
    this.closed = true
    closeSync(this.fd)
  }
}

function readOpen(path: string): Set<string> {
  const open = new Set<string>()
  if (!existsSync(path)) return open
  const lines = readFileSync(path, 'utf8').split('\n')
  // The last piece is empty, or a line torn by a kill inside write(2): a post that had not started.
  for (const line of lines.slice(0, -1)) {
    if (line.startsWith('+')) open.add(line.slice(1))
    else if (line.startsWith('-')) open.delete(line.slice(1))
  }
  return open
}
