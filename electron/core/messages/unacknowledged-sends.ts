import type { WaConnection, WaStatusUpdate } from '../contract/network'
import type { Logger } from '../logger'
import type { MessageStore } from '../store/message-store'

/** How long an unacknowledged send is sent again on each new connection before it is marked failed. */
const DEFAULT_RESEND_WINDOW_MS = 10 * 60_000

/** The error_code of the failed status a send gets when the network never acknowledged it in the window. */
const UNACKNOWLEDGED = 'unacknowledged'

export interface UnacknowledgedSendsDeps {
  store: Pick<MessageStore, 'content'>
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
}

/**
 * The sends whose acknowledgement did not come before their request was answered (504 upstream_timeout),
 * as the message may have been written into a link that had silently died. Each is sent again, under the
 * same id, on every new connection of its instance until the network acknowledges it; one still
 * unacknowledged when the window closes is marked failed (message.status `failed`, error_code
 * `unacknowledged`). Kept in memory: after a restart, a retry under the send's idempotency key sends it again.
 */
export class UnacknowledgedSends {
  private readonly watched = new Map<string, Watched>()
  private readonly windowMs: number
  private readonly log: Logger

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
    const watched = { ...send, timer }
    this.watched.set(key, watched)
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

  /** An instance (re)connected: its unacknowledged sends go out again on the new link. */
  connected(instanceId: string): void {
    for (const watched of this.watched.values()) {
      if (watched.instanceId === instanceId) void this.resend(watched)
    }
  }

  /** Forgets an instance's sends (destroyed). */
  forgetInstance(instanceId: string): void {
    for (const [key, watched] of this.watched)
      if (watched.instanceId === instanceId) this.forget(key, watched)
  }

  /** Stops every timer (core shutdown). */
  close(): void {
    for (const [key, watched] of this.watched) this.forget(key, watched)
  }

  private async resend(watched: Watched): Promise<void> {
    const { instanceId, id, chat } = watched
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

  private forget(key: string, watched: Watched): void {
    clearTimeout(watched.timer)
    this.watched.delete(key)
  }
}

function keyOf(instanceId: string, id: string): string {
  return `${instanceId}\u0000${id}`
}
