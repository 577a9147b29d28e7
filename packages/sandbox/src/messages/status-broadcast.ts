import type { AccountDirectory } from '../accounts/account-directory'
import type { GroupMember } from '../groups/group-registry'

/** Where a phone's status updates go: WhatsApp's broadcast JID. */
export const STATUS_BROADCAST = 'status@broadcast'

/** Who a message encrypted with a sender key goes to, and which devices already hold each sender's key. */
export interface SenderKeyAudience {
  readonly jid: string
  readonly members: ReadonlyArray<Pick<GroupMember, 'account'>>
  holdsSenderKey(sender: string, device: string): boolean
  markSenderKeyHeld(sender: string, device: string): void
}

/**
 * The audience of status updates: every account on the network (the sandbox's accounts all know each
 * other). Status updates are sender-key messages to `status@broadcast`, as on WhatsApp. Which devices hold a
 * poster's key is kept in memory: after a restart the key is sent again with the next update.
 */
export class StatusBroadcast implements SenderKeyAudience {
  readonly jid = STATUS_BROADCAST
  private readonly holders = new Map<string, Set<string>>()

  constructor(private readonly directory: AccountDirectory) {}

  get members(): Array<Pick<GroupMember, 'account'>> {
    return this.directory.all().map((account) => ({ account }))
  }

  holdsSenderKey(sender: string, device: string): boolean {
    return this.holders.get(sender)?.has(device) ?? false
  }

  markSenderKeyHeld(sender: string, device: string): void {
    const held = this.holders.get(sender) ?? new Set<string>()
    held.add(device)
    this.holders.set(sender, held)
  }
}
