import type { WaConnection, WaStatusUpdate } from '../contract/network'
import type { Logger } from '../logger'
import type { InstanceAuthStore } from '../store/auth-store'
import type { MessageStore } from '../store/message-store'
import { TurnsPerKey } from '../turns-per-key'

/** How long an unacknowledged send is sent again on each new connection before it is marked failed. */
const DEFAULT_RESEND_WINDOW_MS = 10 * 60_000

/** The error_code of the failed status a send gets when the network never acknowledged it in the window. */
const UNACKNOWLEDGED = 'unacknowledged'

/**
 * Where the watched sends of an instance are kept across restarts: one entry in its key store (beside the
 * Signal sessions they were encrypted with, fenced and wiped with them), by message id.
 */
const KEY_TYPE = 'linkdesk-unacknowledged'
const KEY_ID = 'sends'

/** What is kept of a watched send: enough to send it again or mark it failed after a restart. */
interface KeptSend {
  chat: string
  sentAt: number
}
type Kept = Record<string, KeptSend>

export interface UnacknowledgedSendsDeps {
  store: Pick<MessageStore, 'content'>
  /** The instance's key store, where the watched sends are kept across restarts. */
  auth(instanceId: string): InstanceAuthStore
  logger: Logger
  /** The instance's messaging operations, once connected (rejects when it cannot send). */
  connection(instanceId: string): Promise<WaConnection>
  /** Applies a status as the network's own (stored, then announced as message.status). */
  applyStatus(instanceId: string, update: WaStatusUpdate): void
  /** Sends are re-sent for this long after they were first sent, then marked failed. */
  windowMs?: number
  now?: () => number
}

/** A send the network did not acknowledge in time: what is needed to send it again and to answer a retry. */
export interface UnacknowledgedSend {
  instanceId: string
  id: string
  chat: string
  /** The socket it last went out on (WaConnection.linkId): sent again only on another one. */
  linkId: number
  /** Called once the network acknowledged it (the idempotency ledger keeps the answer from then on). */
  acknowledged(): Promise<void>
}

interface Watched extends UnacknowledgedSend {
  timer: NodeJS.Timeout
  sentAt: number
}

/** A send watched again after a restart: its answer was given (504) by the process before. */
const nothingToRecord = async (): Promise<void> => {}

/**
 * The sends whose acknowledgement did not come before their request was answered (504 upstream_timeout),
 * as the message may have been written into a link that had silently died. Each is sent again, under the
 * same id, on every new connection of its instance until the network acknowledges it; one still
 * unacknowledged when the window closes is marked failed (message.status `failed`, error_code
 * `unacknowledged`). Each is also kept in the instance's key store until it settles, so a restart (or a kill)
 * in between watches it again from the instance's first connection: sent again within the window, marked
 * failed past it.
 */
export class UnacknowledgedSends {
  private readonly watched = new Map<string, Watched>()
  private readonly windowMs: number
  private readonly log: Logger
  /** Instances whose kept sends were read back since this process started. */
  private readonly restored = new Set<string>()
  /** Per instance, the kept sends' writes in call order (each a read-modify-write of one entry). */
  private readonly writes = new TurnsPerKey()

  constructor(private readonly deps: UnacknowledgedSendsDeps) {
    this.windowMs = deps.windowMs ?? DEFAULT_RESEND_WINDOW_MS
    this.log = deps.logger.child({ module: 'messages' })
  }

  /** Watches a send from the moment its acknowledgement wait ran out; sends it again if the link changed. */
  watch(send: UnacknowledgedSend, sentAt: number): void {
    const key = keyOf(send.instanceId, send.id)
    if (this.watched.has(key)) return
    const left = Math.max(0, sentAt + this.windowMs - (this.deps.now ?? Date.now)())
    const timer = setTimeout(() => this.expire(key), left)
    timer.unref()
    const watched = { ...send, timer, sentAt }
    this.watched.set(key, watched)
    this.keep(send.instanceId, (kept) => {
      kept[send.id] = { chat: send.chat, sentAt }
    })
    void this.resend(watched)
  }

  /** The network reported a status for a message: acknowledged (or refused), it is no longer watched. */
  settled(instanceId: string, id: string, ok: boolean): void {
    const key = keyOf(instanceId, id)
    const watched = this.watched.get(key)
    if (!watched) return
    this.forget(key, watched)
    if (!ok) return
    watched.acknowledged().catch((error: unknown) => {
      this.log.error({ err: error, instanceId, messageId: id }, 'recording an acknowledged send failed')
    })
  }

  /**
   * An instance (re)connected: its unacknowledged sends go out again on the new link. At its first connection
   * since the start, the sends kept by the process before are watched again first.
   */
  connected(instanceId: string): void {
    if (!this.restored.has(instanceId)) {
      this.restored.add(instanceId)
      void this.restore(instanceId)
      return
    }
    for (const watched of this.watched.values()) {
      if (watched.instanceId === instanceId) void this.resend(watched)
    }
  }

  /** Forgets an instance's sends (destroyed: its key store goes with it). */
  forgetInstance(instanceId: string): void {
    for (const [key, watched] of this.watched) if (watched.instanceId === instanceId) this.stop(key, watched)
    this.restored.delete(instanceId)
  }

  /** Stops every timer (core shutdown); the kept sends stay kept for the next start. */
  close(): void {
    for (const [key, watched] of this.watched) this.stop(key, watched)
  }

  /** Watches again the sends an earlier process kept for the instance and had not settled. */
  private async restore(instanceId: string): Promise<void> {
    let kept: Kept
    try {
      kept = await this.read(instanceId)
    } catch (error) {
      this.log.error({ err: error, instanceId }, 'reading the unacknowledged sends failed')
      return
    }
    for (const [id, { chat, sentAt }] of Object.entries(kept)) {
      if (this.watched.has(keyOf(instanceId, id))) continue
      this.log.info({ instanceId, messageId: id }, 'watching an unacknowledged send again after a restart')
      // No socket it went out on in this process: the current one sends it again.
      this.watch({ instanceId, id, chat, linkId: -1, acknowledged: nothingToRecord }, sentAt)
    }
    for (const watched of this.watched.values()) {
      if (watched.instanceId === instanceId) void this.resend(watched)
    }
  }

  private async read(instanceId: string): Promise<Kept> {
    const found = await this.deps.auth(instanceId).getKeys(KEY_TYPE, [KEY_ID])
    return { ...((found[KEY_ID] as Kept | undefined) ?? {}) }
  }

  /** Changes the instance's kept sends, after every change asked before it. */
  private keep(instanceId: string, change: (kept: Kept) => void): void {
    this.writes
      .run(instanceId, async () => {
        const kept = await this.read(instanceId)
        change(kept)
        await this.deps.auth(instanceId).setKeys({ [KEY_TYPE]: { [KEY_ID]: kept } })
      })
      .catch((error: unknown) => {
        this.log.error({ err: error, instanceId }, 'keeping the unacknowledged sends failed')
      })
  }

  private async resend(watched: Watched): Promise<void> {
    const { instanceId, id, chat } = watched
    // Past its window (kept while the app was down): it is marked failed, never sent again.
    if (watched.sentAt + this.windowMs <= (this.deps.now ?? Date.now)()) return
    const connection = await this.deps.connection(instanceId).catch(() => undefined)
    // Still the link it went out on (a silent one not yet declared lost): the next connection sends it.
    if (!connection || connection.linkId === watched.linkId) return
    if (this.watched.get(keyOf(instanceId, id)) !== watched) return
    watched.linkId = connection.linkId
    try {
      const content = await this.deps.store.content(instanceId, id)
      if (!content) throw new Error('the sent message is not stored')
      await connection.resend(chat, id, content)
      this.log.info({ instanceId, messageId: id }, 'sent an unacknowledged message again')
    } catch (error) {
      this.log.warn(
        { err: error, instanceId, messageId: id },
        'sending an unacknowledged message again failed',
      )
    }
  }

  private expire(key: string): void {
    const watched = this.watched.get(key)
    if (!watched) return
    this.forget(key, watched)
    const { instanceId, id, chat } = watched
    this.log.warn({ instanceId, messageId: id }, 'a send was never acknowledged: marked failed')
    this.deps.applyStatus(instanceId, {
      id,
      chat,
      status: 'failed',
      participant: null,
      timestamp: null,
      errorCode: UNACKNOWLEDGED,
    })
  }

  /** No longer watched, and no longer kept: it settled or was marked failed. */
  private forget(key: string, watched: Watched): void {
    this.stop(key, watched)
    this.keep(watched.instanceId, (kept) => {
      delete kept[watched.id]
    })
  }

  /** No longer watched by this process (its entry stays kept). */
  private stop(key: string, watched: Watched): void {
    clearTimeout(watched.timer)
    this.watched.delete(key)
  }
}

function keyOf(instanceId: string, id: string): string {
  return `${instanceId}\u0000${id}`
}
