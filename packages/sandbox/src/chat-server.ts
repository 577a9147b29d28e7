import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import type { Logger } from './logger'
import { refuseOutdatedClient } from './accounts/client-version'
import { logIn } from './accounts/login'
import type { PairingRegistry } from './accounts/pairing'
import { handleCall } from './calls/call-stanzas'
import { handleClientAck } from './channels/channel-posts'
import { registerChannelQueries } from './channels/channel-queries'
import { registerGroupQueries } from './groups/group-queries'
import { handleClientMessage } from './messages/client-messages'
import { handleClientReceipt } from './messages/retry-receipts'
import type { SandboxNetwork } from './network'
import { handleChatState, handlePresence } from './presence/presence-stanzas'
import { registerPreKeyQueries } from './stanzas/prekey-queries'
import { registerSessionQueries } from './stanzas/session-queries'
import { iqError } from './stanzas/binary-node'
import { StanzaRouter } from './stanzas/stanza-router'
import { registerUsyncQueries } from './stanzas/usync-queries'
import type { ServerIdentity } from './transport/cert-chain'
import { ClientConnection } from './transport/client-connection'

export interface ChatServer {
  wsUrl: string
  /** The client version document (`/sw.js`), on the same host as the chat endpoint, as on web.whatsapp.com. */
  versionUrl: string
  close(): Promise<void>
}

export interface ChatServerOptions {
  host: string
  port: number
  network: SandboxNetwork
  identity: ServerIdentity
  pairing: PairingRegistry
  logger: Logger
}

function createRouter(pairing: PairingRegistry): StanzaRouter {
  const router = new StanzaRouter()
  // Linking by a pairing code: the device's two stages, before it has logged in.
  router.iq('md', 'set', 'link_code_companion_reg', ({ connection }, iq, request) => {
    if (request?.attrs.stage === 'companion_hello') pairing.companionHello(connection, iq, request)
    else if (request?.attrs.stage === 'companion_finish') pairing.companionFinish(connection, iq, request)
    else connection.send(iqError(iq, 501, 'feature-not-implemented'))
  })
  registerSessionQueries(router)
  registerPreKeyQueries(router)
  registerUsyncQueries(router)
  registerGroupQueries(router)
  registerChannelQueries(router)
  return router
    .stanza('message', handleClientMessage)
    .stanza('receipt', handleClientReceipt)
    .stanza('presence', handlePresence)
    .stanza('chatstate', handleChatState)
    .stanza('call', handleCall)
    .stanza('ack', handleClientAck)
}

/** The websocket endpoint clients connect to, as they would to web.whatsapp.com/ws/chat. */
export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const { network, identity, pairing, logger } = options
  const router = createRouter(pairing)
  const connections = new Set<ClientConnection>()
  const http = createServer((request, response) => serveVersionDocument(network, request, response))
  // Listening before the websocket server is attached: ws re-emits the HTTP server's errors on itself, where
  // a taken port would be an unhandled 'error' event instead of this rejection (the caller tries another port).
  await new Promise<void>((resolve, reject) => {
    http.once('listening', resolve)
    http.once('error', reject)
    http.listen(options.port, options.host)
  })
  const server = new WebSocketServer({ server: http, maxPayload: 32 * 1024 * 1024 })

  server.on('connection', (socket) => {
    const log = logger.child({ connection: connections.size })
    const connection: ClientConnection = new ClientConnection(
      socket,
      identity,
      {
        onHandshake(conn, payload) {
          if (refuseOutdatedClient(network.clientVersions, conn, payload, log)) return
          if (payload.devicePairingData) pairing.start(conn, payload.devicePairingData)
          else logIn(network, conn, payload, log)
        },
        onStanza(conn, stanza) {
          const ctx = { network, connection: conn, session: network.sessions.get(conn), log }
          router
            .dispatch(ctx, stanza)
            .catch((error: unknown) => log.warn({ err: error, tag: stanza.tag }, 'stanza failed'))
        },
        onClose(conn) {
          connections.delete(conn)
          pairing.forget(conn)
          const session = network.sessions.get(conn)
          if (!session) return
          network.sessions.delete(conn)
          if (session.device.connection === conn) session.device.connection = undefined
          network.events.emit('disconnect', { phone: session.account.phone, device: session.device.id })
        },
      },
      log,
      () => ({ minMs: network.timings.latencyMs, jitterMs: network.timings.latencyJitterMs }),
    )
    connections.add(connection)
  })

  const { port } = http.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    wsUrl: `ws://${host}:${port}/ws/chat`,
    versionUrl: `http://${host}:${port}/sw.js`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of connections) connection.terminate()
        server.close()
        http.close(() => resolve())
        http.closeAllConnections()
      }),
  }
}

/** Plain HTTP on the chat port: the client version document; nothing else. */
function serveVersionDocument(
  network: SandboxNetwork,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (request.method !== 'GET' || request.url !== '/sw.js') {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, { 'content-type': 'text/javascript' }).end(network.clientVersions.document())
}
