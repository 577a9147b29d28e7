import type { KindModule } from './kind-module'

/**
 * A reaction, read as its own type; what it does to the message it reacts to (message.reaction) and how one
 * is sent (react) are the network adapter's message actions, since they address that message by its key.
 */
export const REACTION_KIND: KindModule = {
  name: 'reaction',
  reads: { reactionMessage: { type: 'reaction' } },
}
