import { dropNotifyOnChange, notifyOnChange } from '@kcore/db'
import type { Migration } from 'kysely'
import { REVISION_CHANNEL } from '../revision.js'
import type { AnyDb } from './any-db.js'

/**
 * Every change of the revision notifies {@link REVISION_CHANNEL} at commit, so a process that
 * sees every commit (PGlite) can keep the revision in memory until it moves (`revisionReads`).
 */
export const revisionNotify: Migration = {
  async up(db: AnyDb) {
    await notifyOnChange(db, 'cal_revision', REVISION_CHANNEL)
  },
  async down(db: AnyDb) {
    await dropNotifyOnChange(db, 'cal_revision')
  },
}
