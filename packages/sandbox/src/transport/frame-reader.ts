/** The bytes a client sends once, before its first frame: "WA", protocol 6, dictionary 3. */
export const INTRO_HEADER = Buffer.from([0x57, 0x41, 0x06, 0x03])

/** The binary dictionaries the network speaks: 3 (Baileys 7, WhatsApp Web today) and 2 (the Baileys 6 line). */
export type DictionaryVersion = 2 | 3
const DICTIONARY_VERSIONS: readonly number[] = [2, 3]

const EDGE_ROUTING_MAGIC = Buffer.from('ED')

/** Cuts 3-byte length-prefixed frames out of a byte stream that arrives in arbitrary chunks. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0)
  /** The intro header the client sent (the Noise prologue), once read. */
  intro: Buffer | undefined

  /** Appends bytes and returns every complete frame. Throws on a malformed intro. */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk
    if (!this.intro && !this.consumeIntro()) return []
    const frames: Buffer[] = []
    while (this.buffered.length >= 3) {
      const size = this.buffered.readUIntBE(0, 3)
      if (this.buffered.length < 3 + size) break
      frames.push(this.buffered.subarray(3, 3 + size))
      this.buffered = this.buffered.subarray(3 + size)
    }
    return frames
  }

  private consumeIntro(): boolean {
    let offset = 0
    // A client that was given routing info prefixes "ED" 00 01 <len:3> <routing info>.
    if (this.buffered.length >= 2 && this.buffered.subarray(0, 2).equals(EDGE_ROUTING_MAGIC)) {
      if (this.buffered.length < 7) return false
      offset = 7 + this.buffered.readUIntBE(4, 3)
    }
    if (this.buffered.length < offset + INTRO_HEADER.length) return false
    const intro = Buffer.from(this.buffered.subarray(offset, offset + INTRO_HEADER.length))
    if (
      !intro.subarray(0, 3).equals(INTRO_HEADER.subarray(0, 3)) ||
      !DICTIONARY_VERSIONS.includes(intro[3] ?? 0)
    ) {
      throw new Error('connection did not start with the WhatsApp intro header')
    }
    this.buffered = this.buffered.subarray(offset + INTRO_HEADER.length)
    this.intro = intro
    return true
  }

  /** The dictionary the client announced in its intro header. */
  get dictionary(): DictionaryVersion {
    return this.intro?.[3] === 2 ? 2 : 3
  }
}

export function encodeFrame(payload: Buffer): Buffer {
  const frame = Buffer.alloc(3 + payload.length)
  frame.writeUIntBE(payload.length, 0, 3)
  payload.copy(frame, 3)
  return frame
}
