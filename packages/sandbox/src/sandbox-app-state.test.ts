import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type BinaryNode } from '@whiskeysockets/baileys'
import { linkedClient, linkedDeviceFixture } from './testing/sandbox-fixture'

const ME = '15550630001'
const ALICE = '15550630002'

const linked = linkedDeviceFixture(ME, [{ phone: ALICE, name: 'Alice' }])

test('a display name one device sets reaches the account’s other device by app-state sync, and the network', async () => {
  const other = await linkedClient(linked.sandbox, ME)
  try {
    assert.ok(linked.device.sock && other.sock)
    await linked.device.sock.updateProfileName('Front desk')
    assert.equal(linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name, 'Front desk')
    await other.waitFor(
      () => other.sock?.authState.creds.me?.name === 'Front desk',
      'the other device’s name',
    )
    // A device linked later reads the collection from its start.
    const later = await linkedClient(linked.sandbox, ME)
    try {
      await later.waitFor(
        () => later.sock?.authState.creds.me?.name === 'Front desk',
        'the new device’s name',
      )
    } finally {
      await later.stop()
    }
  } finally {
    await other.stop()
  }
})

test('a patch the network cannot read, or made from an old version, is refused and nothing is kept', async () => {
  const sock = linked.device.sock
  assert.ok(sock)
  const push = (version: string, patch: Uint8Array): Promise<BinaryNode> =>
    sock.query({
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:sync:app:state' },
      content: [
        {
          tag: 'sync',
          attrs: {},
          content: [
            {
              tag: 'collection',
              attrs: { name: 'critical_block', version },
              content: [{ tag: 'patch', attrs: {}, content: patch }],
            },
          ],
        },
      ],
    })
  const before = linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name
  await assert.rejects(
    push('0', Buffer.from('not a patch')),
    (error: any) => error.data === 409 || error.data === 400,
  )
  const current = await sock.query({
    tag: 'iq',
    attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'w:sync:app:state' },
    content: [
      {
        tag: 'sync',
        attrs: {},
        content: [{ tag: 'collection', attrs: { name: 'critical_block', version: '0' } }],
      },
    ],
  })
  const version = (current.content as BinaryNode[])[0]?.content as BinaryNode[]
  const collection = version[0] as BinaryNode
  await assert.rejects(
    push(collection.attrs.version ?? '0', Buffer.from('not a patch')),
    (error: any) => error.data === 400,
  )
  assert.equal(linked.sandbox.control.accounts().find((a) => a.phone === ME)?.name, before)
})
