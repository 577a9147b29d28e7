import {
  decryptPollVote,
  getAggregateVotesInPollMessage,
  jidNormalizedUser,
  proto,
} from '@whiskeysockets/baileys'
import { createHash } from 'node:crypto'

/** A poll as its creation message states it. */
export interface WaPoll {
  question: string
  options: string[]
  /** How many options a voter may pick: 1, or 0 for any number. */
  selectable: number
}

function creationOf(message: proto.IMessage): proto.Message.IPollCreationMessage | null | undefined {
  return message.pollCreationMessage ?? message.pollCreationMessageV2 ?? message.pollCreationMessageV3
}

/** The poll a stored message creates, or undefined when it is not a poll. */
export function pollOf(content: Uint8Array): WaPoll | undefined {
  const creation = creationOf(proto.Message.decode(content))
  if (!creation) return undefined
  return {
    question: creation.name ?? '',
    options: (creation.options ?? []).map((option) => option.optionName ?? ''),
    selectable: creation.selectableOptionsCount ?? 0,
  }
}

/**
 * The options a vote picks, as the hashes it carries, decrypted with the poll's secret. The key is derived
 * from the poll creator's and the voter's ids in the form the voter's client used (phone number or LID),
 * which the receiver cannot know: each candidate pair is tried. Undefined when none opens the vote.
 */
export function decryptVote(
  vote: proto.Message.IPollEncValue,
  poll: { id: string; content: Uint8Array; creators: string[]; voters: string[] },
): Uint8Array[] | undefined {
  const secret = proto.Message.decode(poll.content).messageContextInfo?.messageSecret
  if (!secret || !vote.encPayload || !vote.encIv) return undefined
  for (const creator of poll.creators) {
    for (const voter of poll.voters) {
      try {
        const decrypted = decryptPollVote(
          { encPayload: vote.encPayload, encIv: vote.encIv },
          {
            pollCreatorJid: jidNormalizedUser(creator),
            pollMsgId: poll.id,
            pollEncKey: secret,
            voterJid: jidNormalizedUser(voter),
          },
        )
        return (decrypted.selectedOptions ?? []).map((option) => Uint8Array.from(option))
      } catch {
        // Not this pair: the authentication tag does not match.
      }
    }
  }
  return undefined
}

/** The option names a vote's hashes stand for (a hash of no option, which no app sends, is left out). */
export function optionNames(content: Uint8Array, hashes: readonly Uint8Array[]): string[] {
  const byHash = new Map((pollOf(content)?.options ?? []).map((name) => [sha256(name), name]))
  return hashes.flatMap((hash) => byHash.get(Buffer.from(hash).toString('hex')) ?? [])
}

/** Every option with the voters who picked it, from each voter's latest vote. */
export function tallyVotes(
  content: Uint8Array,
  votes: ReadonlyArray<{ voter: string; hashes: readonly Uint8Array[] }>,
): Array<{ option: string; voters: string[] }> {
  const message = proto.Message.decode(content)
  const pollUpdates = votes.map(({ voter, hashes }) => ({
    pollUpdateMessageKey: { remoteJid: voter, fromMe: false, id: '' },
    // Baileys compares hashes as Buffer strings: plain Uint8Arrays would all read as unknown options.
    vote: { selectedOptions: hashes.map((hash) => Buffer.from(hash)) },
  }))
  return getAggregateVotesInPollMessage({ message, pollUpdates }).map(({ name, voters }) => ({
    option: name,
    voters,
  }))
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
