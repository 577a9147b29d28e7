import { children, iqError, iqResult, node, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext, StanzaRouter } from '../stanzas/stanza-router'
import { announceGroupCreated } from './group-notifications'
import type { Group } from './group-registry'

/** A group as the w:g2 queries describe it, addressed by LID with phone numbers beside. */
export function groupNode(group: Group): BinaryNode {
  const { creator } = group
  const created = String(group.createdAt)
  return node(
    'group',
    {
      id: group.id,
      subject: group.subject,
      s_t: created,
      s_o: creator.lidJid,
      s_o_pn: creator.pnJid,
      creation: created,
      creator: creator.lidJid,
      creator_pn: creator.pnJid,
      size: String(group.members.length),
      addressing_mode: 'lid',
    },
    group.members.map(({ account, role }) =>
      node('participant', {
        jid: account.lidJid,
        phone_number: account.pnJid,
        ...(role ? { type: role } : {}),
      }),
    ),
  )
}

function answerMetadata({ network, connection, session }: StanzaContext, iq: BinaryNode): void {
  const group = network.groups.get(iq.attrs.to)
  // Like WhatsApp, a group is invisible to non-members.
  if (!group || (session && !group.has(session.account)))
    return connection.send(iqError(iq, 404, 'item-not-found'))
  connection.send(iqResult(iq, [groupNode(group)]))
}

function answerParticipating({ network, connection, session }: StanzaContext, iq: BinaryNode): void {
  const groups = session ? network.groups.of(session.account) : []
  connection.send(iqResult(iq, [node('groups', {}, groups.map(groupNode))]))
}

/** A linked device creates a group: it becomes the creator, the participants it names must be on the network. */
function answerCreate(
  { network, connection, session }: StanzaContext,
  iq: BinaryNode,
  create: BinaryNode | undefined,
): void {
  if (!session) return connection.send(iqError(iq, 401, 'not-authorized'))
  const members = children(create, 'participant').map((participant) =>
    network.directory.resolve(participant.attrs.jid),
  )
  if (members.some((member) => member === undefined)) return connection.send(iqError(iq, 400, 'bad-request'))
  const accounts = members.flatMap((member) => (member ? [member.account] : []))
  const group = network.groups.create(create?.attrs.subject ?? 'Group', session.account, accounts)
  connection.send(iqResult(iq, [groupNode(group)]))
  announceGroupCreated(group, session.device)
}

function answerSubject(
  { network, connection, session }: StanzaContext,
  iq: BinaryNode,
  subject: BinaryNode | undefined,
): void {
  const group = network.groups.get(iq.attrs.to)
  if (!group || !session || !group.has(session.account))
    return connection.send(iqError(iq, 404, 'item-not-found'))
  const text = subject?.content
  if (typeof text === 'string' || text instanceof Uint8Array) group.rename(Buffer.from(text).toString('utf8'))
  connection.send(iqResult(iq))
}

export function registerGroupQueries(router: StanzaRouter): void {
  router
    .iq('w:g2', 'get', 'query', answerMetadata)
    .iq('w:g2', 'get', 'participating', answerParticipating)
    .iq('w:g2', 'set', 'create', answerCreate)
    .iq('w:g2', 'set', 'subject', answerSubject)
}
