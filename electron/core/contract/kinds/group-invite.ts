import type { KindModule, ProtocolLong } from './kind-module'
import { protocolNumber } from './kind-module'

/** An invitation to join a group, with the code the network made when the invitee's privacy refused an add. */
export interface GroupInviteContent {
  kind: 'group_invite'
  group: string
  subject: string
  code: string
  expiration: number
  text: string
}

/** An invitation as the protocol carries it. */
interface ProtocolGroupInvite {
  groupJid?: string | null
  groupName?: string | null
  inviteCode?: string | null
  inviteExpiration?: ProtocolLong | null
  caption?: string | null
}

/** An invitation to a group (sent when someone's privacy refused an add): its text is the invitation's. */
export const GROUP_INVITE_KIND: KindModule = {
  name: 'group_invite',
  reads: {
    groupInviteMessage: {
      type: 'group_invite',
      read: (invite: ProtocolGroupInvite) => ({
        text: invite.caption,
        group_invite:
          invite.groupJid && invite.inviteCode
            ? {
                group_id: invite.groupJid,
                subject: invite.groupName ?? '',
                code: invite.inviteCode,
                expiration: invite.inviteExpiration ? protocolNumber(invite.inviteExpiration) : null,
              }
            : null,
      }),
    },
  },
  writes: {
    group_invite: {
      write: ({ group, subject, code, expiration, text }: GroupInviteContent) => ({
        groupInvite: { jid: group, subject, inviteCode: code, inviteExpiration: expiration, text },
      }),
    },
  },
}
