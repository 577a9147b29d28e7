import { AsyncLocalStorage } from 'node:async_hooks'

/** One holder's claim on a store's commits (see CommitHold.hold). */
export interface HeldWrites {
  /**
   * Runs `work`: the writes it makes, directly or through what it awaits, are held until `release`. Writes made
   * elsewhere meanwhile are held only when they touch a key a held write touches (they must commit after it).
   */
  during<T>(work: () => Promise<T>): Promise<T>
  /**
   * Ends the hold (calling it again does nothing). Released with `kept` false, the holder did not keep what its
   * writes depend on: every commit held meanwhile is dropped (rejected, so the store knows its memory is ahead
   * of what is durable) instead of made.
   */
  release(kept?: boolean): void
}

/** A hold's own mark on the writes made during it. */
interface Holder {
  released: boolean
}

/**
 * Holds back some of a store's commits: those of the writes a holder makes during its hold (an incoming
 * message's decryption), and of any write that touches a key one of them touched. Once the last hold is
 * released the held commits start, in the order they were asked for. Every other commit starts at once, so a
 * hold never delays the writes of the rest of the instance (pre-keys about to be uploaded, a send's session)
 * nor takes them down with it when it is dropped. Writes stay visible to reads meanwhile (the stores keep
 * them as pending); only their durability waits.
 */
export class CommitHold {
  private readonly scope = new AsyncLocalStorage<Holder>()
  private holds = 0
  private waiting: Array<(dropped?: Error) => void> = []
  /** The keys of the writes held now: a later write of one of them is held too, to commit after them. */
  private heldKeys = new Set<string>()
  /** Who waits for every hold to be released. */
  private idle: Array<() => void> = []
  /** Set when a holder did not keep what it held: the held commits are then dropped, not made. */
  private dropping: Error | undefined

  /** Whether a hold is on now. */
  get active(): boolean {
    return this.holds > 0
  }

  /** Resolves once no hold is on: at once when none is. */
  released(): Promise<void> {
    if (this.holds === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  /**
   * Starts `commit` now, or once every hold is released when the write is held: made during a hold that is
   * still on (and `holdable`: some writes never depend on what a holder keeps), or touching a key a held write
   * touches. Answers which, and the commit.
   */
  run(
    keys: readonly string[],
    holdable: boolean,
    commit: () => Promise<unknown>,
  ): { held: boolean; committed: Promise<unknown> } {
    if (!this.isHeld(keys, holdable)) return { held: false, committed: commit() }
    for (const key of keys) this.heldKeys.add(key)
    const committed = new Promise((resolve, reject) =>
      this.waiting.push((dropped) => (dropped ? reject(dropped) : void commit().then(resolve, reject))),
    )
    return { held: true, committed }
  }

  private isHeld(keys: readonly string[], holdable: boolean): boolean {
    if (this.holds === 0) return false
    const holder = this.scope.getStore()
    if (holdable && holder !== undefined && !holder.released) return true
    return keys.some((key) => this.heldKeys.has(key))
  }

  /** Holds the commits of what is written during the hold (see HeldWrites). */
  hold(): HeldWrites {
    this.holds += 1
    const holder: Holder = { released: false }
    return {
      during: (work) => this.scope.run(holder, work),
      release: (kept = true) => {
        if (holder.released) return
        holder.released = true
        if (!kept)
          this.dropping ??= new Error('a decrypted message was not kept: its key writes were dropped')
        this.holds -= 1
        if (this.holds === 0) this.start()
      },
    }
  }

  /** Releases every hold (the store is closing): what waits starts now. */
  releaseAll(): void {
    this.holds = 0
    this.start()
  }

  private start(): void {
    const waiting = this.waiting
    const dropped = this.dropping
    const idle = this.idle
    this.waiting = []
    this.heldKeys = new Set()
    this.dropping = undefined
    this.idle = []
    for (const commit of waiting) commit(dropped)
    for (const resolve of idle) resolve()
  }
}
