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

/** The round trip the network takes before answering a client of Baileys' 6.x line after its handshake. */
const OLD_LINE_ROUND_TRIP_MS = 150

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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

  constructor(
    private readonly socket: WebSocket,
    private readonly identity: ServerIdentity,
    private readonly handlers: ConnectionHandlers,
    private readonly log: Logger,
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
    this.socket.send(encodeFrame(this.cipher.encrypt(encodeStanza(stanza, this.frames.dictionary))))
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

  /** Closes the websocket after writing any last stanza. */
  close(): void {
    if (this.closed) return
    this.socket.close()
  }

  /** Drops the TCP connection without a close frame. */
  terminate(): void {
    this.socket.terminate()
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
        this.socket.send(encodeFrame(this.noise.respondToHello(frame)))
      } else {
        const result = this.noise.finish(frame)
        this.clientStatic = result.clientStatic
        this.cipher = result.cipher
        const answer = () => this.handlers.onHandshake(this, result.payload)
        // Baileys' 6.x line derives its transport keys only after its last handshake write has gone out, without
        // waiting: an answer faster than a network's round trip reaches it before them and cannot be read. Its
        // connections get that round trip before the network answers (and before its next stanzas are read).
        if (this.frames.dictionary === 2) {
          this.decoding = this.decoding
            .then(() => sleep(OLD_LINE_ROUND_TRIP_MS))
            .then(answer)
            .catch((error: unknown) => {
              this.log.debug({ err: error }, 'handshake failure, closing')
              this.terminate()
            })
        } else answer()
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
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer)
      waiting.reject(new Error(`connection closed before the client answered ${id}`))
    }
    this.pending.clear()
    this.handlers.onClose(this)
  }
}
