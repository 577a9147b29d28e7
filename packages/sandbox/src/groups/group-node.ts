import { type BinaryNode, node } from '../stanzas/binary-node'
import type { Group } from './group-registry'

/** A group as the w:g2 queries describe it, addressed by LID with phone numbers beside. */
export function groupNode(
  group: Group,
  options: { participants?: boolean; refused?: BinaryNode[] } = {},
): BinaryNode {
  const { creator, description } = group
  const created = String(group.createdAt)
  const subject = group.subjectSet
  const content: BinaryNode[] = []
  if (options.participants !== false) {
    for (const { account, role } of group.members) {
      content.push(
        node('participant', {
          jid: account.lidJid,
          phone_number: account.pnJid,
          ...(role ? { type: role } : {}),
        }),
      )
    }
  }
  // A new group's answer names, beside its members, each participant the network left out (with the error).
  content.push(...(options.refused ?? []))
  if (description) {
    const by = description.by
    content.push(
      node(
        'description',
        { id: description.id, t: String(description.at), participant_pn: `${by}@s.whatsapp.net` },
        [node('body', {}, Buffer.from(description.text, 'utf8'))],
      ),
    )
  }
  // A community says so; its linked groups and its announcement group name it (Baileys' isCommunity,
  // linkedParent and isCommunityAnnounce read these).
  if (group.isCommunity)
    content.push(node('parent', { default_membership_approval_mode: 'request_required' }))
  if (group.linkedParent) content.push(node('linked_parent', { jid: group.linkedParent }))
  if (group.isAnnouncementGroup) content.push(node('default_sub_group'))
  if (group.announce) content.push(node('announcement'))
  if (group.restrict) content.push(node('locked'))
  if (group.ephemeral) content.push(node('ephemeral', { expiration: String(group.ephemeral) }))
  return node(
    'group',
    {
      id: group.id,
      subject: group.subject,
      s_t: String(subject.at),
      s_o: subject.by.lidJid,
      s_o_pn: subject.by.pnJid,
      creation: created,
      creator: creator.lidJid,
      creator_pn: creator.pnJid,
      size: String(group.members.length),
      addressing_mode: 'lid',
    },
    content,
  )
}
