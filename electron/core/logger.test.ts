import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { createLogger } from './logger'

test('a child that names a key of its parent, and a call that repeats one, write the key once: the innermost value', async () => {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  const root = createLogger('info', destination)
  const instance = root.child({ module: 'instance', instanceId: 'I1' })
  instance.child({ module: 'baileys', instanceId: 'I1' }).info({ instanceId: 'I1', code: 515 }, 'restart')
  assert.equal(lines.length, 1)
  const line = lines[0]!
  assert.equal(line.match(/"module":/g)?.length, 1, line)
  assert.equal(line.match(/"instanceId":/g)?.length, 1, line)
  assert.equal(JSON.parse(line).module, 'baileys')
  assert.ok(line.endsWith('}\n'))
})
