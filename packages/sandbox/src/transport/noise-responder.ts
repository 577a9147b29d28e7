import { createCipheriv, createDecipheriv, createHash, hkdfSync } from 'node:crypto'
import { Curve, proto, type KeyPair } from '@whiskeysockets/baileys'

// Exactly 32 bytes, so Noise uses it as the initial hash without hashing it.
const NOISE_PROTOCOL = Buffer.from('Noise_XX_25519_AESGCM_SHA256\0\0\0\0')
const EMPTY = Buffer.alloc(0)

function nonce(counter: number): Buffer {
  const iv = Buffer.alloc(12)
  iv.writeUInt32BE(counter, 8)
  return iv
}

function sealGcm(plain: Buffer, key: Buffer, counter: number, aad: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce(counter))
  cipher.setAAD(aad)
  return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
}

function openGcm(sealed: Buffer, key: Buffer, counter: number, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce(counter))
  decipher.setAAD(aad)
  decipher.setAuthTag(sealed.subarray(sealed.length - 16))
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()])
}

function hkdf64(ikm: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, EMPTY, 64))
}

/** The two keys of an established link, one counter per direction. */
export class TransportCipher {
  private readCounter = 0
  private writeCounter = 0

  constructor(
    private readonly readKey: Buffer,
    private readonly writeKey: Buffer,
  ) {}

  encrypt(plain: Buffer): Buffer {
    return sealGcm(plain, this.writeKey, this.writeCounter++, EMPTY)
  }

  decrypt(sealed: Buffer): Buffer {
    return openGcm(sealed, this.readKey, this.readCounter++, EMPTY)
  }
}

export interface HandshakeResult {
  /** The client's long-term Noise key: the only credential a linked device presents at login. */
  clientStatic: Buffer
  payload: proto.ClientPayload
  cipher: TransportCipher
}

/** Responder side of Noise_XX_25519_AESGCM_SHA256 as WhatsApp Web uses it. */
export class NoiseResponder {
  private hash: Buffer = NOISE_PROTOCOL
  private salt: Buffer = NOISE_PROTOCOL
  private key: Buffer = NOISE_PROTOCOL
  private counter = 0
  private ephemeral: KeyPair | undefined

  constructor(
    private readonly staticKey: KeyPair,
    private readonly certChain: Uint8Array,
    introHeader: Buffer,
  ) {
    this.mixHash(introHeader)
  }

  /** Answers the clientHello frame with the serverHello frame. */
  respondToHello(frame: Buffer): Buffer {
    const clientEphemeral = proto.HandshakeMessage.decode(frame).clientHello?.ephemeral
    if (!clientEphemeral) throw new Error('handshake: clientHello without ephemeral key')
    const clientEph = Buffer.from(clientEphemeral)
    this.mixHash(clientEph)
    const ephemeral = Curve.generateKeyPair()
    this.ephemeral = ephemeral
    this.mixHash(ephemeral.public)
    this.mixKey(Curve.sharedKey(ephemeral.private, clientEph))
    const encryptedStatic = this.encrypt(Buffer.from(this.staticKey.public))
    this.mixKey(Curve.sharedKey(this.staticKey.private, clientEph))
    const encryptedPayload = this.encrypt(Buffer.from(this.certChain))
    return Buffer.from(
      proto.HandshakeMessage.encode({
        serverHello: { ephemeral: ephemeral.public, static: encryptedStatic, payload: encryptedPayload },
      }).finish(),
    )
  }

  /** Reads clientFinish and splits the handshake into the transport keys. */
  finish(frame: Buffer): HandshakeResult {
    const finish = proto.HandshakeMessage.decode(frame).clientFinish
    if (!finish?.static || !finish.payload || !this.ephemeral)
      throw new Error('handshake: incomplete clientFinish')
    const clientStatic = this.decrypt(Buffer.from(finish.static))
    this.mixKey(Curve.sharedKey(this.ephemeral.private, clientStatic))
    const payload = proto.ClientPayload.decode(this.decrypt(Buffer.from(finish.payload)))
    const keys = hkdf64(EMPTY, this.salt)
    // The client writes with the first half, so the server reads with it.
    return { clientStatic, payload, cipher: new TransportCipher(keys.subarray(0, 32), keys.subarray(32)) }
  }

  private mixHash(data: Uint8Array): void {
    this.hash = createHash('sha256').update(this.hash).update(data).digest()
  }

  private mixKey(ikm: Buffer): void {
    const keys = hkdf64(ikm, this.salt)
    this.salt = keys.subarray(0, 32)
    this.key = keys.subarray(32)
    this.counter = 0
  }

  private encrypt(plain: Buffer): Buffer {
    const sealed = sealGcm(plain, this.key, this.counter++, this.hash)
    this.mixHash(sealed)
    return sealed
  }

  private decrypt(sealed: Buffer): Buffer {
    const plain = openGcm(sealed, this.key, this.counter++, this.hash)
    this.mixHash(sealed)
    return plain
  }
}
