import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Logger } from '../logger'
import type { ToThread } from './delivery-thread'
import { judgeAnswer, type AttemptRequest, type AttemptResult, type PostAnswer } from './webhook-delivery'

/** How one POST is made and judged: its timeout, the clock, the stop signal and the node posting. */
export interface PostDeps {
  timeoutMs: number
  now: () => number
  /** Aborted when the queue's worker stops: the POST is abandoned (aborted, unless it was answered first). */
  stop: AbortSignal
  node?: string
}

/** A POST handed to the delivery threads and judged here, or made and judged on the main thread. */
export type PostOnce = (queue: string, request: AttemptRequest, deps: PostDeps) => Promise<AttemptResult>

interface Thread {
  worker: Worker
  /** The posts sent to it, by id, waiting for their answer. */
  waiting: Map<number, (answer: PostAnswer) => void>
}

/**
 * The delivery thread's entry beside this module: the TypeScript source under tsx (tests, `dev:serve`), the
 * compiled `delivery-thread.js` in a build (both vite configs emit it as an entry beside their chunks).
 */
function threadEntry(): { start(): Worker } {
  const here = import.meta.url
  const source = here.endsWith('.ts')
  const entry = new URL(source ? './delivery-thread.ts' : './delivery-thread.js', here)
  if (!existsSync(fileURLToPath(entry))) {
    throw new Error(`the webhook delivery thread is missing: ${fileURLToPath(entry)} (the build emits it)`)
  }
  if (!source) return { start: () => new Worker(entry) }
  // A worker thread does not inherit the main thread's TypeScript loader (Node 20): it registers tsx first.
  const tsx = import.meta.resolve('tsx/esm/api')
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`
  return { start: () => new Worker(boot, { eval: true }) }
}

/**
 * The webhook delivery threads: a POST's body is built, signed and sent in a worker thread, so the main
 * thread (Baileys, the API, the store) spends on each delivery only the hand-over and the judging of the
 * answer. A queue always posts through the same thread (its connections stay warm); its order is kept by its
 * worker (delivery-worker.ts), which hands over one POST at a time and waits for its outcome. A thread that
 * dies answers its waiting posts as network errors (retried as any) and is started again at the next post.
 */
export class DeliveryThreads {
  private readonly entry = threadEntry()
  private readonly threads: Array<Thread | undefined>
  private nextId = 1
  private closed = false

  constructor(
    size: number,
    private readonly log: Logger,
  ) {
    this.threads = Array.from({ length: Math.max(1, size) }, () => undefined)
  }

  readonly post: PostOnce = async (queue, request, deps) => {
    if (deps.stop.aborted || this.closed) return { kind: 'aborted' }
    const timestamp = String(Math.floor(deps.now() / 1000))
    const thread = this.thread(queue)
    const id = this.nextId++
    const answered = new Promise<PostAnswer>((resolve) => thread.waiting.set(id, resolve))
    if (thread.waiting.size === 1) thread.worker.ref()
    const message: ToThread = {
      type: 'post',
      id,
      request: { ...request, timestamp, ...(deps.node !== undefined && { node: deps.node }) },
      timeoutMs: deps.timeoutMs,
    }
    thread.worker.postMessage(message)
    const onStop = () => thread.worker.postMessage({ type: 'abort', id } satisfies ToThread)
    deps.stop.addEventListener('abort', onStop, { once: true })
    try {
      return judgeAnswer(await answered, deps)
    } finally {
      deps.stop.removeEventListener('abort', onStop)
    }
  }

  /** Stops the threads (after the queues' workers stopped: no post is waiting then). */
  async close(): Promise<void> {
    this.closed = true
    const threads = this.threads.filter((thread): thread is Thread => thread !== undefined)
    this.threads.fill(undefined)
    await Promise.all(threads.map(({ worker }) => worker.terminate()))
  }

  private thread(queue: string): Thread {
    const slot = hash(queue) % this.threads.length
    const existing = this.threads[slot]
    if (existing) return existing
    const worker = this.entry.start()
    const thread: Thread = { worker, waiting: new Map() }
    worker.unref()
    worker.on('message', ({ id, answer }: { id: number; answer: PostAnswer }) => {
      const resolve = thread.waiting.get(id)
      thread.waiting.delete(id)
      if (thread.waiting.size === 0) worker.unref()
      resolve?.(answer)
    })
    const gone = (why: string) => {
      if (this.threads[slot] === thread) this.threads[slot] = undefined
      for (const resolve of thread.waiting.values())
        resolve({ kind: 'error', error: `network error: ${why}`, timedOut: false, latencyMs: 0 })
      thread.waiting.clear()
    }
    worker.on('error', (error) => {
      this.log.error({ err: error }, 'a webhook delivery thread failed; it is started again at the next post')
      gone('the delivery thread failed')
    })
    worker.on('exit', () => gone('the delivery thread stopped'))
    this.threads[slot] = thread
    return thread
  }
}

/** FNV-1a of the queue id: which thread a queue posts through. */
function hash(queue: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < queue.length; i++) h = Math.imul(h ^ queue.charCodeAt(i), 0x01000193)
  return h >>> 0
}
