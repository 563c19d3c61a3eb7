import { type Migration, sql } from 'kysely'
import { noteChangeBody, UPDATE_0013 } from './0013-changes-feed.js'
import type { AnyDb } from './any-db.js'

/**
 * An update that changes a row's public id (a `scope=following` split moves an edited
 * occurrence under the new series: a new occurrence id) is the old id deleted and the new one
 * created, so a feed follower drops the id that no longer answers.
 */
const UPDATE_0016 = `          execute format($q$ insert into cal_change
              (xid, kind, record_id, before_status, after_status, modified)
            select pg_current_xact_id()::text, n.kind, x.record_id, x.before_status,
              x.after_status, x.modified
            from (select r.id, %s as record_id, %s as status from cal_old r) o
            join (select r.id, %s as record_id, %s as kind, %s as status, %s as modified
              from cal_new r) n
              on n.id = o.id
            cross join lateral (values
              (true, o.record_id, o.status, null, now()),
              (false, n.record_id, case when n.record_id = o.record_id then o.status end,
                n.status, n.modified)) x (gone, record_id, before_status, after_status, modified)
            where not x.gone or o.record_id <> n.record_id $q$,
            id, status, id, kind, status, modified);
`

async function noteChange(db: AnyDb, update: string): Promise<void> {
  await sql`create or replace function cal_note_change() returns trigger language plpgsql as ${sql.raw(
    noteChangeBody(update),
  )}`.execute(db)
}

export const movedPublicIds: Migration = {
  up: (db: AnyDb) => noteChange(db, UPDATE_0016),
  down: (db: AnyDb) => noteChange(db, UPDATE_0013),
}
