import type { Database } from '@kcore/db'
import { sql } from 'kysely'

/**
 * Process ids of the other sessions of this database now running a statement that contains
 * `text`; with `waitingOnLock`, only those blocked on a lock.
 */
export async function backendsRunning(
  database: Database,
  text: string,
  { waitingOnLock = false } = {},
): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid()
       and state = 'active' and position(${text} in query) > 0
       and (not ${waitingOnLock} or wait_event_type = 'Lock')`.execute(database.db)
  return rows.map((r) => r.pid)
}

/** Whether the session with this process id is still connected. */
export async function backendAlive(database: Database, pid: number): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(database.db)
  return rows[0]!.n > 0
}

/** How many other sessions are connected to this database. */
export async function otherSessions(database: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid()`.execute(database.db)
  return rows[0]!.n
}
