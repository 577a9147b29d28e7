import { child, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext } from '../stanzas/stanza-router'

/** `<call to=caller><reject call-id=…/></call>`: a linked device declines a ringing call; acknowledged. */
export function handleCall({ network, session, connection, log }: StanzaContext, stanza: BinaryNode): void {
  const reject = child(stanza, 'reject')
  if (session && reject) {
    const callId = reject.attrs['call-id'] ?? ''
    if (!network.calls.reject(callId, session.account))
      log.warn({ callId }, 'rejection of a call that is not ringing')
  } else {
    log.warn({ child: stanza.content }, 'a call stanza the network does not know was ignored')
  }
  connection.send(
    node('ack', {
      class: 'call',
      id: stanza.attrs.id ?? '',
      from: stanza.attrs.to ?? '',
      t: String(unixNow()),
      type: 'reject',
    }),
  )
}
