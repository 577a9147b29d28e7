import type { Logger } from '../logger'
import type { LinkedSession, SandboxNetwork } from '../network'
import type { ClientConnection } from '../transport/client-connection'
import { childrenOf, iqError, type BinaryNode } from './binary-node'

/** What a handler knows about the stanza's origin. `session` is unset before login (QR pairing). */
export interface StanzaContext {
  network: SandboxNetwork
  connection: ClientConnection
  session: LinkedSession | undefined
  log: Logger
}

export type IqHandler = (
  ctx: StanzaContext,
  iq: BinaryNode,
  first: BinaryNode | undefined,
) => void | Promise<void>
export type StanzaHandler = (ctx: StanzaContext, stanza: BinaryNode) => void | Promise<void>

/** Dispatches client stanzas by tag, and iq queries by xmlns, type and first child, as the server would. */
export class StanzaRouter {
  private readonly iqHandlers = new Map<string, IqHandler>()
  private readonly stanzaHandlers = new Map<string, StanzaHandler>()

  iq(xmlns: string, type: 'get' | 'set', firstChild: string, handler: IqHandler): this {
    this.iqHandlers.set(`${xmlns}|${type}|${firstChild}`, handler)
    return this
  }

  stanza(tag: string, handler: StanzaHandler): this {
    this.stanzaHandlers.set(tag, handler)
    return this
  }

  async dispatch(ctx: StanzaContext, stanza: BinaryNode): Promise<void> {
    if (stanza.tag !== 'iq') {
      const handler = this.stanzaHandlers.get(stanza.tag)
      if (handler) await handler(ctx, stanza)
      else ctx.log.trace({ tag: stanza.tag }, 'stanza ignored')
      return
    }
    const { xmlns = '', type = '' } = stanza.attrs
    if (type !== 'get' && type !== 'set') return
    const first = childrenOf(stanza)[0]
    const handler = this.iqHandlers.get(`${xmlns}|${type}|${first?.tag ?? ''}`)
    if (handler) return handler(ctx, stanza, first)
    // Never an empty success: a client (and a test) must see that the network did nothing.
    ctx.log.warn({ xmlns, type, child: first?.tag }, 'unhandled iq answered with an error')
    ctx.connection.send(iqError(stanza, 501, 'feature-not-implemented'))
  }
}
