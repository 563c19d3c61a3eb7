import { dropNotifyOnChange, notifyOnChange } from '@kcore/db'
import type { Kysely, Migration } from 'kysely'
import { KCORE_REVISION_CHANNEL } from '../revision.js'

/**
 * Every change of the revision notifies {@link KCORE_REVISION_CHANNEL} at commit, so a process that
 * sees every commit (PGlite) can keep the revision in memory until it moves (`revisionReads`).
 */
export const revisionNotify: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await notifyOnChange(db, 'kcore_revision', KCORE_REVISION_CHANNEL)
  },
  async down<DB>(db: Kysely<DB>) {
    await dropNotifyOnChange(db, 'kcore_revision')
  },
}
