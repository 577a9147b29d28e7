import type { OpenStores } from '../backend'
import { PollVoteTally } from '../poll-votes'
import { LmdbAuthStore } from './auth'
import { openDatabase } from './database'
import { LmdbEventStore } from './events'
import { LmdbLedgerRecords } from './ledger'
import { LmdbMessageStore } from './messages'
import { LmdbPollVotes } from './poll-votes'
import { FileSettingsStore } from './settings'
import { UploadStore } from './uploads'

/**
 * The embedded store, all in the data folder: settings in `config.json`, credentials and keys in `auth/`,
 * events, messages, the idempotency ledger and poll votes in `db/`, media and uploads as files.
 */
export const openStores: OpenStores<'lmdb'> = async (_choice, { dataDir, cipher, deferredCommitMs }) => {
  const settings = new FileSettingsStore(dataDir)
  const auth = new LmdbAuthStore(dataDir, cipher)
  const db = openDatabase(dataDir)
  const events = new LmdbEventStore(db, deferredCommitMs)
  return {
    kind: 'lmdb',
    settings,
    auth,
    events,
    eventDurability: 'journal',
    messages: new LmdbMessageStore(db, dataDir),
    ledger: new LmdbLedgerRecords(db),
    polls: new PollVoteTally(new LmdbPollVotes(db)),
    uploads: new UploadStore(dataDir),
    close: async () => {
      await auth.close()
      events.flush()
      await db.close()
    },
  }
}
