import { randomBytes } from 'node:crypto'
import type { proto } from '@whiskeysockets/baileys'
import type { WebSocket } from 'ws'
import type { Logger } from '../logger'
import type { BinaryNode } from '../stanzas/binary-node'
import { decodeStanza, encodeStanza } from './binary-codec'
import { encodeFrame, FrameReader } from './frame-reader'
import { NoiseResponder, type TransportCipher } from './noise-responder'
import type { ServerIdentity } from './cert-chain'

export interface ConnectionHandlers {
  onHandshake(connection: ClientConnection, payload: proto.ClientPayload): void
  onStanza(connection: ClientConnection, stanza: BinaryNode): void
  onClose(connection: ClientConnection): void
}

/**
 * How long the network takes to bring a frame to the client: at least `minMs`, plus up to `jitterMs` at random,
 * frames keeping their order. A real network is never faster than this, and clients count on it: Baileys
 * 7.0.0-rc.6 and the 6.x line derive their transport keys only after their last handshake write has gone out,
 * so an answer that reaches them sooner cannot be read.
 */
export interface LinkLatency {
  minMs: number
  jitterMs: number
}

interface PendingQuery {
  resolve(reply: BinaryNode): void
  reject(error: Error): void
  timer: NodeJS.Timeout
}

/** One websocket from a client: framing, the Noise handshake, then encrypted stanzas both ways. */
export class ClientConnection {
  readonly id = randomBytes(4).toString('hex')
  /** The client's Noise static key, known once the handshake is done. */
  clientStatic: Buffer | undefined
  private readonly frames = new FrameReader()
  /** Made once the client's intro header (the handshake's prologue) is read. */
  private noise: NoiseResponder | undefined
  private cipher: TransportCipher | undefined
  private silent = false
  private closed = false
  private decoding: Promise<void> = Promise.resolve()
  private readonly pending = new Map<string, PendingQuery>()
  /** Frames on their way to the client, each with when it arrives (never before the one ahead of it). */
  private outgoing: Array<{ due: number; frame: Buffer }> = []
  private delivery: NodeJS.Timeout | undefined
  /** close() was called with frames still on their way: the socket closes once they have arrived. */
  private closing = false

  constructor(
    private readonly socket: WebSocket,
    private readonly identity: ServerIdentity,
    private readonly handlers: ConnectionHandlers,
    private readonly log: Logger,
    private readonly latency: () => LinkLatency = () => ({ minMs: 0, jitterMs: 0 }),
  ) {
    socket.on('message', (data: Buffer) => this.receive(data))
    socket.on('close', () => this.onSocketClosed())
    socket.on('error', (error) => log.debug({ err: error }, 'websocket error'))
  }

  get isOpen(): boolean {
    return !this.closed && !this.silent
  }

  /** Encrypts and writes one stanza; does nothing once the link is closed or silent. */
  send(stanza: BinaryNode): void {
    if (!this.cipher || !this.isOpen) return
    this.log.trace({ tag: stanza.tag, type: stanza.attrs.type, id: stanza.attrs.id }, 'stanza out')
    // Encrypted now, in the order sent (the cipher counts frames); delivered after the link's latency.
    this.write(encodeFrame(this.cipher.encrypt(encodeStanza(stanza, this.frames.dictionary))))
  }

  /** Sends an iq and resolves with the client's reply (same id). */
  query(stanza: BinaryNode, timeoutMs: number): Promise<BinaryNode> {
    const id = stanza.attrs.id || randomBytes(6).toString('hex')
    const request = { ...stanza, attrs: { ...stanza.attrs, id } }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`client did not answer ${stanza.tag} ${id} in ${timeoutMs} ms`))
      }, timeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      this.send(request)
    })
  }

  /**
   * Closes the websocket once the stanzas on their way have arrived and the client has had a round trip to
   * answer them (its acknowledgements), as a server that closes after its last write would be seen.
   */
  close(): void {
    if (this.closed || this.closing) return
    const { minMs } = this.latency()
    if (this.outgoing.length === 0 && minMs <= 0) {
      this.socket.close()
      return
    }
    this.closing = true
    const lastArrives = this.outgoing.at(-1)?.due ?? Date.now()
    setTimeout(() => this.socket.close(), Math.max(0, lastArrives - Date.now()) + 2 * minMs)
  }

  /** Drops the TCP connection without a close frame (and what was on its way). */
  terminate(): void {
    this.dropOutgoing()
    this.socket.terminate()
  }

  private write(frame: Buffer): void {
    const { minMs, jitterMs } = this.latency()
    if (minMs <= 0 && jitterMs <= 0 && this.outgoing.length === 0) {
      this.socket.send(frame)
      return
    }
    const arrives = Date.now() + Math.max(0, minMs) + Math.random() * Math.max(0, jitterMs)
    this.outgoing.push({ due: Math.max(this.outgoing.at(-1)?.due ?? 0, arrives), frame })
    this.scheduleDelivery()
  }

  private scheduleDelivery(): void {
    const next = this.outgoing[0]
    if (this.delivery || !next) return
    this.delivery = setTimeout(
      () => {
        this.delivery = undefined
        this.deliver()
      },
      Math.max(0, next.due - Date.now()),
    )
  }

  private deliver(): void {
    const now = Date.now()
    while (this.outgoing[0] && this.outgoing[0].due <= now) {
      const { frame } = this.outgoing.shift()!
      if (!this.closed && !this.silent) this.socket.send(frame)
    }
    this.scheduleDelivery()
  }

  private dropOutgoing(): void {
    clearTimeout(this.delivery)
    this.delivery = undefined
    this.outgoing = []
  }

  /** Keeps the socket open but stops reading and writing: a link that went dead. */
  goSilent(): void {
    this.silent = true
  }

  private receive(data: Buffer): void {
    if (!this.isOpen) return
    let frames: Buffer[]
    try {
      frames = this.frames.push(data)
    } catch (error) {
      this.log.debug({ err: error }, 'bad framing, closing')
      this.terminate()
      return
    }
    for (const frame of frames) this.onFrame(frame)
  }

  private onFrame(frame: Buffer): void {
    try {
      if (this.cipher) {
        const plain = this.cipher.decrypt(frame)
        // Decoding is async (zlib); chain it so stanzas are handled in arrival order.
        this.decoding = this.decoding.then(() => this.decode(plain))
      } else if (!this.noise) {
        const { staticKey, certChain } = this.identity
        this.noise = new NoiseResponder(staticKey, certChain, this.frames.intro ?? Buffer.alloc(0))
        this.write(encodeFrame(this.noise.respondToHello(frame)))
      } else {
        const result = this.noise.finish(frame)
        this.clientStatic = result.clientStatic
        this.cipher = result.cipher
        this.handlers.onHandshake(this, result.payload)
      }
    } catch (error) {
      this.log.debug({ err: error }, 'handshake or transport failure, closing')
      this.terminate()
    }
  }

  private async decode(plain: Buffer): Promise<void> {
    let stanza: BinaryNode
    try {
      stanza = await decodeStanza(plain, this.frames.dictionary)
    } catch (error) {
      this.log.debug({ err: error }, 'undecodable stanza dropped')
      return
    }
    if (!this.isOpen) return
    this.log.trace({ tag: stanza.tag, type: stanza.attrs.type, id: stanza.attrs.id }, 'stanza in')
    const id = stanza.attrs.id
    const waiting = id !== undefined && stanza.tag === 'iq' ? this.pending.get(id) : undefined
    if (waiting && (stanza.attrs.type === 'result' || stanza.attrs.type === 'error')) {
      this.pending.delete(id as string)
      clearTimeout(waiting.timer)
      waiting.resolve(stanza)
      return
    }
    this.handlers.onStanza(this, stanza)
  }

  private onSocketClosed(): void {
    if (this.closed) return
    this.closed = true
    this.dropOutgoing()
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer)
      waiting.reject(new Error(`connection closed before the client answered ${id}`))
    }
    this.pending.clear()
    this.handlers.onClose(this)
  }
}
