import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { SessionRecord as LibsignalRecord } from 'libsignal'
import { createLogger } from '../logger'
import { installLibsignalConsoleFilter, isLibsignalConsoleCall } from './libsignal-console-filter'

/** libsignal's session record as its JavaScript has it (its typings omit these members). */
const SessionRecord = LibsignalRecord as unknown as {
  new (): { closeSession(session: object): void }
  createEntry(): Record<string, unknown>
}

/** Everything written to stdout, stderr and the logger while `work` runs. */
function capture(work: () => void): string {
  let out = ''
  const writes = [process.stdout, process.stderr].map((stream) => {
    const original = stream.write.bind(stream)
    stream.write = ((chunk: string | Uint8Array) => {
      out += chunk.toString()
      return true
    }) as typeof stream.write
    return () => (stream.write = original)
  })
  try {
    work()
  } finally {
    writes.forEach((restore) => restore())
  }
  return out
}

test('a libsignal session close prints nothing of the session (private keys included) anywhere', () => {
  let logged = ''
  const sink = new Writable({ write: (chunk, _encoding, done) => ((logged += chunk.toString()), done()) })
  installLibsignalConsoleFilter(createLogger('debug', sink))

  const record = new SessionRecord()
  const session = SessionRecord.createEntry()
  session.indexInfo = {
    baseKey: Buffer.from('base'),
    baseKeyType: 1,
    closed: -1,
    used: 1,
    created: 1,
    remoteIdentityKey: Buffer.from('remote'),
  }
  session.currentRatchet = { ephemeralKeyPair: { privKey: Buffer.from('TOP-SECRET-PRIVATE-KEY') } }
  const printed = capture(() => {
    record.closeSession(session)
    record.closeSession(session)
  })
  assert.equal(printed, '')
  assert.doesNotMatch(logged, /TOP-SECRET|privKey|VE9QLVNFQ1JFVC/)
  assert.match(logged, /Closing session/)

  // eslint-disable-next-line no-console -- proves that ordinary console output still prints
  const other = capture(() => console.info('an ordinary line'))
  assert.match(other, /an ordinary line/)
})

test('libsignal calls are recognised by their words or by a session object among the arguments', () => {
  assert.equal(isLibsignalConsoleCall(['Opening session:', {}]), true)
  assert.equal(isLibsignalConsoleCall(['Session error:Error: Bad MAC', 'stack']), true)
  assert.equal(isLibsignalConsoleCall(['something', SessionRecord.createEntry()]), true)
  assert.equal(isLibsignalConsoleCall(['Listening on 8686']), false)
})
