import { randomBytes } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { proto } from '@whiskeysockets/baileys'
import type { LinkedSession, SandboxNetwork } from '../network'
import { node, unixNow } from '../stanzas/binary-node'
import { encNode, encryptForDevice, newMessageId } from './device-crypto'
import { historyConversations } from './history-conversations'

/** A protocol message from the account's phone to one of its linked devices. */
async function sendFromPhone(session: LinkedSession, message: proto.IMessage): Promise<void> {
  const { account, device } = session
  const ciphertext = await encryptForDevice(account, account, device, message)
  const attrs = {
    from: account.pnJid,
    id: newMessageId(),
    t: String(unixNow()),
    type: 'text',
    category: 'peer',
    push_priority: 'high_force',
    notify: account.name,
  }
  device.deliver(node('message', attrs, [encNode(ciphertext)]))
}

/**
 * The phone's first messages to a newly linked device: the app-state sync key (with which the account's
 * devices encrypt their settings, such as the display name), then the initial history sync, inline, with the
 * phone's recent chats (historyConversations). Without the history Baileys holds every event for 20 s
 * waiting for it. Its `notify` also tells the device its name.
 */
export async function sendHistoryBootstrap(network: SandboxNetwork, session: LinkedSession): Promise<void> {
  const { account, device } = session
  device.markHistorySent()
  const key = account.appState.key
  await sendFromPhone(session, {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE,
      appStateSyncKeyShare: {
        keys: [
          {
            keyId: { keyId: key.id },
            keyData: {
              keyData: key.data,
              fingerprint: { rawId: randomBytes(4).readUInt32BE(), currentIndex: 0, deviceIndexes: [0] },
              timestamp: Date.now(),
            },
          },
        ],
      },
    },
  })
  const syncType = proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP
  const conversations = historyConversations(network, account)
  const history = proto.HistorySync.encode({ syncType, conversations, progress: 100 }).finish()
  await sendFromPhone(session, {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType,
        chunkOrder: 0,
        progress: 100,
        initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  })
  network.log.debug(
    { phone: account.phone, device: device.id },
    'app-state key and initial history sync sent',
  )
}
