/** Commands the bench sends to a raw Baileys worker over IPC (see raw-worker.ts). */
export type RawCommand =
  | { cmd: 'init'; wsUrl: string; rootKeyHex: string }
  /** A new account: a socket showing its first QR. */
  | { cmd: 'create' }
  /** Waits until the account's socket has opened `count` times (the scan's restart makes it 1). */
  | { cmd: 'open'; slot: number; count: number }
  /**
   * `written`: the next send starts once sendMessage resolved; `acked`: once the server acked it. With several
   * chats in `to`, lane n of the `concurrency` in flight writes to `to[n % to.length]`.
   */
  | {
      cmd: 'send'
      slot: number
      to: string | string[]
      count: number
      concurrency: number
      mode: 'written' | 'acked'
    }
  /** Waits for `count` marked incoming texts (or the timeout), answers their latencies and resets. */
  | { cmd: 'received'; count: number; timeoutMs: number }
  /**
   * Starts the reference server in this process: `POST /send {"slot","to","text"}` calls sendMessage and
   * answers 200 on the server's ack; no persistence, no events. Answers `{ port }`.
   */
  | { cmd: 'serve' }
  | { cmd: 'memory' }
  /** Writes every account's auth state to `path` (BufferJSON). */
  | { cmd: 'save'; path: string }
  /** Reads saved accounts and connects them all at once; answers when every one is open. */
  | { cmd: 'restore'; path: string }
  | { cmd: 'exit' }

export interface RawSendResult {
  /** ms from the call to sendMessage resolving (frame written). */
  written: number[]
  /** ms from the call to the server's ack. */
  acked: number[]
  /** Wall time until the last send resolved (written mode) or was acked (acked mode). */
  seconds: number
  /** Wall time until every send was acked. */
  ackedSeconds: number
  cpuSeconds: number
}

export interface RawMemory {
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  gc: boolean
  /** Each V8 heap space's resident size in bytes, by space name. */
  spaces: Record<string, number>
  /** The resident set split as the process read it itself, before any heap snapshot (kB). */
  rssAnonKb: number
  rssFileKb: number
  /** Where the heap snapshot went, when BENCH_HEAP_SNAPSHOT_DIR is set. */
  snapshot?: string
}
