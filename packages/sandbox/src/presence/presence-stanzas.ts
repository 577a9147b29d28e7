import type { StanzaContext } from '../stanzas/stanza-router'
import { childrenOf, type BinaryNode } from '../stanzas/binary-node'
import type { ChatState } from './presence-relay'

/** `<presence type=available|unavailable>` (the account's availability) or `type=subscribe to=…` (follow). */
export function handlePresence({ network, session, log }: StanzaContext, stanza: BinaryNode): void {
  if (!session) return
  const { type, to } = stanza.attrs
  if (type === 'available' || type === 'unavailable') {
    network.presence.setAvailable(session.account, type === 'available')
    return
  }
  if (type === 'subscribe' && to) {
    const followed = network.directory.resolve(to)
    if (followed) network.presence.subscribe(session.device, followed.account)
    else log.debug({ to }, 'presence subscription to an unknown account ignored')
    return
  }
  log.warn({ type }, 'a presence stanza the network does not know was ignored')
}

/** `<chatstate to=…><composing/></chatstate>`: typing (recording: `media=audio`) or paused, in a chat. */
export function handleChatState({ network, session, log }: StanzaContext, stanza: BinaryNode): void {
  if (!session) return
  const contact = network.directory.resolve(stanza.attrs.to)
  const [signal] = childrenOf(stanza)
  if (!contact || !signal) return
  const state: ChatState | undefined =
    signal.tag === 'composing'
      ? signal.attrs.media === 'audio'
        ? 'recording'
        : 'composing'
      : signal.tag === 'paused'
        ? 'paused'
        : undefined
  if (state) network.presence.sawChatState(contact.account, session.account, state, contact.addressing)
  else log.warn({ tag: signal.tag }, 'a chat state the network does not know was ignored')
}
