import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto'
import { proto } from '@whiskeysockets/baileys'
import type { SandboxState } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'

/** A poll a phone received: its secret (base64) and the id of its creator, as the voter's client uses them. */
interface PollSecret {
  secret: string
  creator: string
}

const LIMIT = 2000

/**
 * The secrets of polls phones received, by poll message id, kept so that a contact can vote later, as the
 * apps keep them; each vote is encrypted with it the way WhatsApp clients do.
 */
export class PollSecrets {
  private readonly kept: StoredList<PollSecret>

  constructor(state: SandboxState) {
    this.kept = new StoredList(state, 'poll-secrets')
  }

  keep(pollId: string, secret: Uint8Array, creator: string): void {
    this.kept.set(pollId, { secret: Buffer.from(secret).toString('base64'), creator })
    if (this.kept.size > LIMIT) this.kept.delete(this.kept.firstKey() ?? '')
  }

  /**
   * A vote as a client sends it: the picked option names' SHA-256 hashes in a PollVoteMessage, AES-GCM
   * encrypted under a key derived from the poll's secret, its id, its creator and the voter.
   */
  encryptVote(
    pollId: string,
    voter: string,
    options: readonly string[],
  ): proto.Message.IPollEncValue | undefined {
    const kept = this.kept.get(pollId)
    return kept && encrypt(kept, pollId, voter, options)
  }

  /** A vote on a poll no one here created: encrypted as a client would, under a random secret no one holds. */
  encryptUnreadableVote(
    pollId: string,
    voter: string,
    options: readonly string[],
  ): proto.Message.IPollEncValue {
    const secret = { secret: randomBytes(32).toString('base64'), creator: '' }
    return encrypt(secret, pollId, voter, options)
  }
}

/** The picked options' SHA-256 hashes in a PollVoteMessage, AES-GCM encrypted under the poll's derived key. */
function encrypt(
  kept: PollSecret,
  pollId: string,
  voter: string,
  options: readonly string[],
): proto.Message.IPollEncValue {
  const selectedOptions = options.map((name) => createHash('sha256').update(name).digest())
  const plain = proto.Message.PollVoteMessage.encode({ selectedOptions }).finish()
  const sign = Buffer.concat([
    Buffer.from(pollId),
    Buffer.from(kept.creator),
    Buffer.from(voter),
    Buffer.from('Poll Vote'),
    Buffer.from([1]),
  ])
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(Buffer.from(kept.secret, 'base64')).digest()
  const key = createHmac('sha256', key0).update(sign).digest()
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(`${pollId}\u0000${voter}`))
  const encrypted = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
  return { encPayload: encrypted, encIv: iv }
}
