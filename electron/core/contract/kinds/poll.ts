import type { KindModule } from './kind-module'

/** A poll: `selectable` options per voter, 1 or 0 for any number. */
export interface PollContent {
  kind: 'poll'
  question: string
  options: string[]
  selectable: number
}

/** A poll (sent with send_poll; its votes come back as poll.vote events), read from any poll creation. */
export const POLL_KIND: KindModule = {
  name: 'poll',
  reads: {
    pollCreationMessage: { type: 'poll' },
    pollCreationMessageV2: { type: 'poll' },
    pollCreationMessageV3: { type: 'poll' },
  },
  writes: {
    // The network library adds the poll's secret (messageContextInfo.messageSecret): the stored content keeps it for votes.
    poll: {
      write: ({ question, options, selectable }: PollContent) => ({
        poll: { name: question, values: options, selectableCount: selectable },
      }),
      answer: 'whole',
    },
  },
}
