import { randomBytes } from 'node:crypto'
import type { MediaStore } from '../media/media-store'
import { type BinaryNode, iqError, iqResult, node, unixNow } from '../stanzas/binary-node'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import type { Account } from './account'

/** An account's current profile picture: its id and where the media host serves it. */
export interface ProfilePicture {
  id: string
  url: string
  directPath: string
}

/** Profile pictures, by phone number (accounts) or JID (groups). */
const PROFILE_PICTURES = defineTable<ProfilePicture>({ name: 'profile-pictures' })

/**
 * Accounts' profile pictures, as the network serves them: the file on the media host (pictures are not
 * end-to-end encrypted), and a `picture` notification to the account's linked devices when it changes.
 */
export class ProfilePictures {
  private readonly table: StateTable<ProfilePicture>

  constructor(
    state: SandboxState,
    private readonly media: MediaStore,
  ) {
    this.table = state.open(PROFILE_PICTURES)
  }

  /** The picture of an account (by phone number) or a group (by JID). */
  get(owner: string): ProfilePicture | undefined {
    return this.table.get(owner)
  }

  /** Keeps a new picture for an account (by phone number) or a group (by JID); the caller tells who needs to know. */
  setFor(owner: string, image: Buffer): ProfilePicture {
    const { url, directPath } = this.media.put(image)
    const picture = { id: String(unixNow()), url, directPath }
    this.table.put(owner, picture)
    return picture
  }

  /** The phone sets a new picture; its linked devices are told, as the real server tells them. */
  set(account: Account, image: Buffer): ProfilePicture {
    const picture = this.setFor(account.phone, image)
    const notification = node(
      'notification',
      { from: account.pnJid, type: 'picture', id: randomBytes(8).toString('hex'), t: String(unixNow()) },
      [node('set', { jid: account.pnJid, id: picture.id })],
    )
    for (const device of account.activeDevices()) device.deliver(notification)
    return picture
  }

  /** The answer to `<iq xmlns="w:profile:picture" target=…><picture query="url"/></iq>`; 404 without one. */
  answer(iq: BinaryNode, owner: string | undefined): BinaryNode {
    const picture = owner && this.get(owner)
    if (!picture) return iqError(iq, 404, 'item-not-found')
    return iqResult(iq, [
      node('picture', { id: picture.id, type: 'image', url: picture.url, direct_path: picture.directPath }),
    ])
  }
}
