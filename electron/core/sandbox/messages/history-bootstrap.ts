import { deflateSync } from 'node:zlib'
import { proto } from '@whiskeysockets/baileys'
import type { LinkedSession, SandboxNetwork } from '../network'
import { node, unixNow } from '../stanzas/binary-node'
import { encNode, encryptForDevice, newMessageId } from './device-crypto'
import { historyConversations } from './history-conversations'

/**
 * The phone's first message to a newly linked device: the initial history sync, inline, with the phone's
 * recent chats (historyConversations). Without it Baileys holds every event for 20 s waiting for history.
 * Its `notify` also tells the device its name.
 */
export async function sendHistoryBootstrap(network: SandboxNetwork, session: LinkedSession): Promise<void> {
  const { account, device } = session
  device.markHistorySent()
  const syncType = proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP
  const conversations = historyConversations(network, account)
  const history = proto.HistorySync.encode({ syncType, conversations, progress: 100 }).finish()
  const message: proto.IMessage = {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType,
        chunkOrder: 0,
        progress: 100,
        initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  }
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
  network.log.debug({ phone: account.phone, device: device.id }, 'initial history sync sent')
}
