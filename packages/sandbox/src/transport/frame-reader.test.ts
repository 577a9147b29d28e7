import assert from 'node:assert/strict'
import { test } from 'node:test'
import { encodeFrame, FrameReader, INTRO_HEADER } from './frame-reader'

const frames = [Buffer.from('first'), Buffer.alloc(70_000, 7), Buffer.from('third')]
const stream = Buffer.concat([INTRO_HEADER, ...frames.map(encodeFrame)])

test('frames are cut out of a stream whatever its chunking, after the intro header', () => {
  for (const chunkSize of [1, 2, 3, 7, 4096, stream.length]) {
    const reader = new FrameReader()
    const out: Buffer[] = []
    for (let offset = 0; offset < stream.length; offset += chunkSize) {
      out.push(...reader.push(stream.subarray(offset, offset + chunkSize)))
    }
    assert.deepEqual(out, frames, `chunks of ${chunkSize}`)
  }
})

test('an edge-routing prefix before the intro header is skipped', () => {
  const routing = Buffer.from([1, 2, 3, 4, 5])
  const prefix = Buffer.concat([Buffer.from('ED'), Buffer.from([0, 1, 0, 0, routing.length]), routing])
  assert.deepEqual(new FrameReader().push(Buffer.concat([prefix, stream])), frames)
})

test('a stream that does not start with the intro header is refused', () => {
  assert.throws(() => new FrameReader().push(Buffer.from('GET / HTTP/1.1')), /intro header/)
})

test('dictionary 2 (the Baileys 6 line) is accepted and named; another dictionary is refused', () => {
  const reader = new FrameReader()
  const intro = Buffer.from([0x57, 0x41, 0x06, 0x02])
  assert.deepEqual(reader.push(Buffer.concat([intro, ...frames.map(encodeFrame)])), frames)
  assert.equal(reader.dictionary, 2)
  assert.deepEqual(reader.intro, intro)
  assert.throws(() => new FrameReader().push(Buffer.from([0x57, 0x41, 0x06, 0x04])), /intro header/)
})
