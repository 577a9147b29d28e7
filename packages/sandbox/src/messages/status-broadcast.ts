import type { Account } from '../accounts/account'
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
 * Status updates: sender-key messages to `status@broadcast`, as on WhatsApp. Each update goes to its poster
 * (the poster's other devices) and to the accounts it names: a phone's contacts, or the list a linked device
 * encrypted the poster's sender key for (Baileys' `statusJidList`). An account's contacts are the other
 * accounts that have its number (those it did not hide its number from) and that it did not block. Which
 * devices hold a poster's key is kept in memory: after a restart the key is sent again with the next update.
 */
export class StatusBroadcast {
  readonly jid = STATUS_BROADCAST
  private readonly holders = new Map<string, Set<string>>()

  constructor(private readonly directory: AccountDirectory) {}

  /** The accounts a phone's status updates go to. */
  contactsOf(poster: Account): Account[] {
    return this.directory
      .all()
      .filter(
        (account) =>
          account !== poster && poster.sharesNumberWith(account.phone) && !poster.blocks(account.phone),
      )
  }

  /** One update's audience: the poster and its recipients (its contacts unless named). */
  audienceOf(poster: Account, recipients: readonly Account[] = this.contactsOf(poster)): SenderKeyAudience {
    const accounts = [poster, ...new Set(recipients.filter((account) => account !== poster))]
    return {
      jid: STATUS_BROADCAST,
      members: accounts.map((account) => ({ account })),
      holdsSenderKey: (sender, device) => this.holders.get(sender)?.has(device) ?? false,
      markSenderKeyHeld: (sender, device) => {
        const held = this.holders.get(sender) ?? new Set<string>()
        held.add(device)
        this.holders.set(sender, held)
      },
    }
  }
}
