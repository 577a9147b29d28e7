import type { LoggedEventView, MessageTickView } from '../../api/types'

/** What later events did to a chat's messages: reactions, edits, deletions, poll tallies and ticks. */
export interface ThreadActs {
  /** By target message: each reactor's emoji. */
  reactions: Map<string, Map<string, string>>
  /** By target message: its newest text. */
  edits: Map<string, string>
  deleted: Set<string>
  /** By poll: its running tally. */
  tallies: Map<string, Array<{ option: string; votes: number }>>
  /** By own message: its newest tick. */
  ticks: Map<string, MessageTickView>
}

const TICK_RANK: Record<MessageTickView, number> = {
  failed: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  played: 4,
}

/** The newer of two ticks (statuses only move forward; a failure always lands). */
export function laterTick(a: MessageTickView | undefined, b: MessageTickView | undefined) {
  if (a === undefined || b === 'failed') return b ?? a
  if (b === undefined || a === 'failed') return a
  return TICK_RANK[b] > TICK_RANK[a] ? b : a
}

type Data = Partial<Record<string, unknown>>

/**
 * The acts on one chat's messages among the window's events (the log's newest page, then everything live),
 * oldest first, so a later act wins.
 */
export function threadActs(events: readonly LoggedEventView[], instanceId: string, chat: string): ThreadActs {
  const acts: ThreadActs = {
    reactions: new Map(),
    edits: new Map(),
    deleted: new Set(),
    tallies: new Map(),
    ticks: new Map(),
  }
  for (const event of events) {
    if (event.instance_id !== instanceId) continue
    const data = event.data as Data
    if (data.chat !== chat) continue
    const target = typeof data.target_id === 'string' ? data.target_id : undefined
    switch (event.event) {
      case 'message.reaction': {
        if (!target || typeof data.sender !== 'string') break
        const by = new Map(acts.reactions.get(target))
        if (data.removed === true || data.emoji === '') by.delete(data.sender)
        else if (typeof data.emoji === 'string') by.set(data.sender, data.emoji)
        acts.reactions.set(target, by)
        break
      }
      case 'message.edited':
        if (target && typeof data.text === 'string') acts.edits.set(target, data.text)
        break
      case 'message.deleted':
        if (target) acts.deleted.add(target)
        break
      case 'poll.vote':
        if (target && Array.isArray(data.tally))
          acts.tallies.set(target, data.tally as Array<{ option: string; votes: number }>)
        break
      case 'message.status':
        // A group's members each send receipts: the message's own ticks are the ones without a member.
        if (typeof data.id !== 'string' || typeof data.status !== 'string') break
        if (!chat.endsWith('@g.us') || data.recipient == null)
          acts.ticks.set(data.id, laterTick(acts.ticks.get(data.id), data.status as MessageTickView)!)
        break
      default:
        break
    }
  }
  return acts
}
