import { notifyPayload } from '@kcore/db'
import type { Kysely, Migration } from 'kysely'
import { KCORE_REVISION_CHANNEL, REVISION_PAYLOAD } from '../revision.js'

/**
 * The revision's notification carries the committed revision and snapshot count
 * ({@link REVISION_PAYLOAD}), so a process that sees every commit (PGlite) keeps both without a
 * query after a commit, which would wait behind the next transaction on its one session.
 */
export const revisionPayload: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await notifyPayload(db, 'kcore_revision', KCORE_REVISION_CHANNEL, REVISION_PAYLOAD)
  },
  async down<DB>(db: Kysely<DB>) {
    await notifyPayload(db, 'kcore_revision', KCORE_REVISION_CHANNEL)
  },
}
