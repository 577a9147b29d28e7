import { EventEmitter } from 'node:events'
import { Agent as HttpsAgent } from 'node:https'
import makeWASocket, {
  Browsers,
  downloadMediaMessage,
  type BaileysEventMap,
  type ChatMutation,
  type WAMessage,
  type WASocket,
} from '@whiskeysockets/baileys'
import pino from 'pino'
import { Agent as UndiciAgent } from 'undici'
import type { SandboxEndpoint } from '../control/control-types'
import { createMemoryAuth, type MemoryAuth } from './memory-auth'

export interface ClientClose {
  code: number | undefined
  message: string
}

export interface SandboxClientOptions {
  endpoint: SandboxEndpoint
  qrTimeoutMs?: number
  keepAliveIntervalMs?: number
  /** Log lines at warn or above that Baileys writes (to prove nothing timed out). */
  onBaileysWarning?: (line: string) => void
  /** Credentials and keys of an earlier client: this one is the same device, started again. */
  auth?: MemoryAuth
  /** Awaited with each decrypted message before its receipt (Linkdesk's patch of Baileys). */
  onDecrypted?: (message: WAMessage) => Promise<void> | void
}

/** Codes after which the app would not reconnect: the link is gone. */
const FINAL_CODES = new Set([401, 403, 419])

/**
 * A real Baileys socket pointed at the sandbox, reconnecting as the app does (on every close but a
 * logout), recording what it emits so tests can wait for it. Media trust is per socket: an https.Agent
 * for uploads and an undici dispatcher for downloads, never process-wide.
 */
export class SandboxClient {
  readonly auth: MemoryAuth
  readonly qrs: string[] = []
  readonly closes: ClientClose[] = []
  readonly upserts: Array<{ message: WAMessage; type: string }> = []
  readonly updates: BaileysEventMap['messages.update'] = []
  readonly groupReceipts: BaileysEventMap['message-receipt.update'] = []
  readonly groups: BaileysEventMap['groups.upsert'] = []
  readonly participantChanges: Array<BaileysEventMap['group-participants.update']> = []
  readonly groupUpdates: BaileysEventMap['groups.update'] = []
  readonly contactUpdates: BaileysEventMap['contacts.update'] = []
  /** Chats' settings as the app state reported them (archived, pinned, muteEndTime, unreadCount). */
  readonly chatUpdates: BaileysEventMap['chats.update'] = []
  readonly contactUpserts: BaileysEventMap['contacts.upsert'] = []
  /** Chats the app state deleted (Baileys' chats.delete). */
  readonly chatDeletes: string[] = []
  /** App-state mutations Baileys read but reports to no listener, only to its log (a cleared chat). */
  readonly unprocessedMutations: ChatMutation[] = []
  /** Labels edited, as the app state reported them (Business accounts). */
  readonly labelEdits: Array<BaileysEventMap['labels.edit']> = []
  /** Labels put on or taken off chats and messages, as the app state reported them. */
  readonly labelAssociations: Array<BaileysEventMap['labels.association']> = []
  readonly presences: Array<BaileysEventMap['presence.update']> = []
  opens = 0
  historySets = 0
  sock: WASocket | undefined
  private readonly changed = new EventEmitter()
  private stopped = false
  private readonly uploadAgent: HttpsAgent
  readonly downloadDispatcher: UndiciAgent
  private readonly logger: pino.Logger

  constructor(private readonly options: SandboxClientOptions) {
    this.auth = options.auth ?? createMemoryAuth()
    this.uploadAgent = new HttpsAgent({ ca: options.endpoint.mediaCaPem })
    this.downloadDispatcher = new UndiciAgent({ connect: { ca: options.endpoint.mediaCaPem } })
    this.changed.setMaxListeners(100)
    const warn = options.onBaileysWarning
    this.logger = warn
      ? pino({ level: 'warn' }, { write: (line: string) => warn(line) })
      : pino({ level: process.env.SANDBOX_BAILEYS_LOG ?? 'silent' })
    const debug = this.logger.debug.bind(this.logger)
    this.logger.debug = ((object: unknown, ...rest: unknown[]) => {
      const mutation = (object as { syncAction?: ChatMutation } | null)?.syncAction
      if (rest[0] === 'unprocessable update' && Array.isArray(mutation?.index)) {
        this.unprocessedMutations.push(mutation)
        this.changed.emit('change')
      }
      debug(object as object, ...(rest as []))
    }) as pino.LogFn
  }

  get me(): { id: string; lid?: string } | undefined {
    return this.auth.state.creds.me ?? undefined
  }

  /** Opens a socket; later ones open by themselves after each non-final close. */
  start(): this {
    this.connect()
    return this
  }

  /** Resolves once `check` returns a value, re-checking on every recorded event. */
  waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = (): boolean => {
        const value = check()
        if (value === undefined || value === false) return false
        cleanup()
        resolve(value)
        return true
      }
      // Baileys can hold events in its buffer for 30 s (protocol notes §13); flushing releases them.
      const flusher = setInterval(() => this.sock?.ev.flush(), 50)
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))
      }, timeoutMs)
      const cleanup = (): void => {
        clearInterval(flusher)
        clearTimeout(timer)
        this.changed.off('change', attempt)
      }
      if (attempt()) return
      this.changed.on('change', attempt)
    })
  }

  waitForOpen(count = this.opens + 1, timeoutMs?: number): Promise<number> {
    return this.waitFor(() => this.opens >= count && this.opens, `connection open #${count}`, timeoutMs)
  }

  waitForClose(count = this.closes.length + 1, timeoutMs?: number): Promise<ClientClose> {
    return this.waitFor(() => this.closes[count - 1], `connection close #${count}`, timeoutMs)
  }

  waitForQr(count = this.qrs.length + 1, timeoutMs?: number): Promise<string> {
    return this.waitFor(() => this.qrs[count - 1], `QR #${count}`, timeoutMs)
  }

  waitForMessage(id: string, timeoutMs?: number): Promise<WAMessage> {
    return this.waitFor(
      () => this.upserts.find((u) => u.message.key.id === id)?.message,
      `message ${id}`,
      timeoutMs,
    )
  }

  /**
   * Resolves once the message reached `status` or a later one. Statuses only go forward, and Baileys folds the
   * updates it holds in its event buffer into one (delivered then read arrive as read) or into the message's
   * own upsert, so an exact status may never be emitted on its own.
   */
  waitForStatus(id: string, status: number, timeoutMs?: number): Promise<number> {
    const reached = (value: number | null | undefined): boolean => (value ?? 0) >= status
    return this.waitFor(
      () =>
        (this.updates.some((u) => u.key.id === id && reached(u.update.status)) ||
          this.upserts.some((u) => u.message.key.id === id && reached(u.message.status))) &&
        status,
      `status ${status} of ${id}`,
      timeoutMs,
    )
  }

  download(message: WAMessage): Promise<Buffer> {
    return downloadMediaMessage(message, 'buffer', {
      options: { dispatcher: this.downloadDispatcher } as RequestInit,
    })
  }

  /** Ends the socket for good (no reconnect). */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    this.sock?.end(undefined)
    this.uploadAgent.destroy()
    await this.downloadDispatcher.close()
  }

  private connect(): void {
    const sock = makeWASocket({
      waWebSocketUrl: this.options.endpoint.wsUrl,
      auth: this.auth.state,
      logger: this.logger,
      browser: Browsers.macOS('Chrome'),
      qrTimeout: this.options.qrTimeoutMs ?? 1500,
      keepAliveIntervalMs: this.options.keepAliveIntervalMs ?? 1000,
      defaultQueryTimeoutMs: 5000,
      fetchAgent: this.uploadAgent,
      markOnlineOnConnect: false,
      onDecrypted: this.options.onDecrypted,
    })
    this.sock = sock
    const changed = (): void => void this.changed.emit('change')
    sock.ev.on('creds.update', (update) => {
      Object.assign(this.auth.state.creds, update)
      changed()
    })
    sock.ev.on('connection.update', (update) => {
      if (update.qr) this.qrs.push(update.qr)
      if (update.connection === 'open') this.opens++
      if (update.connection === 'close') {
        const error = update.lastDisconnect?.error as
          { output?: { statusCode?: number }; message?: string } | undefined
        const code = error?.output?.statusCode
        this.closes.push({ code, message: error?.message ?? '' })
        if (!this.stopped && !FINAL_CODES.has(code ?? 0)) setImmediate(() => this.connect())
      }
      changed()
    })
    sock.ev.on('messages.upsert', ({ messages, type }) => {
      for (const message of messages) this.upserts.push({ message, type })
      changed()
    })
    sock.ev.on('messages.update', (updates) => {
      this.updates.push(...updates)
      changed()
    })
    sock.ev.on('message-receipt.update', (receipts) => {
      this.groupReceipts.push(...receipts)
      changed()
    })
    sock.ev.on('groups.upsert', (groups) => {
      this.groups.push(...groups)
      changed()
    })
    sock.ev.on('group-participants.update', (update) => {
      this.participantChanges.push(update)
      changed()
    })
    sock.ev.on('groups.update', (updates) => {
      this.groupUpdates.push(...updates)
      changed()
    })
    sock.ev.on('contacts.update', (updates) => {
      this.contactUpdates.push(...updates)
      changed()
    })
    sock.ev.on('chats.update', (updates) => {
      this.chatUpdates.push(...updates)
      changed()
    })
    sock.ev.on('chats.delete', (chats) => {
      this.chatDeletes.push(...chats)
      changed()
    })
    sock.ev.on('labels.edit', (label) => {
      this.labelEdits.push(label)
      changed()
    })
    sock.ev.on('labels.association', (association) => {
      this.labelAssociations.push(association)
      changed()
    })
    sock.ev.on('contacts.upsert', (contacts) => {
      this.contactUpserts.push(...contacts)
      changed()
    })
    sock.ev.on('presence.update', (update) => {
      this.presences.push(update)
      changed()
    })
    sock.ev.on('messaging-history.set', () => {
      this.historySets++
      changed()
    })
  }
}
