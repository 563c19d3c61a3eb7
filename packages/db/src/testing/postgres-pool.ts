import postgres from 'postgres'
import type { Database } from '../database.js'
import { openPostgresDatabase } from '../postgres-database.js'
import { EMPTY_AGAIN, fingerprintQuery } from './empty-database.js'

/**
 * Where this run's throwaway databases are named from: `kcore_t_<run>_…`, the run given by
 * the test runner's global setup (`KCORE_TEST_RUN`, so its teardown drops exactly this run's
 * databases, whatever another run on the same server holds), else one of this process's own.
 */
const RUN = (process.env.KCORE_TEST_RUN ?? Math.random().toString(36).slice(2, 8)).replace(
  /[^a-z0-9]/g,
  '',
)
export const THROWAWAY_PREFIX = 'kcore_t_'

/** Emptied databases of this process, by server, ready to be handed out again. */
const idle = new Map<string, string[]>()
/** At most this many idle databases are kept per server. */
const MAX_IDLE = 4
/** What an empty database of each server looks like, read from the first one made. */
const emptyFingerprints = new Map<string, Promise<string>>()

/**
 * A PostgreSQL database no other test uses, on the server of `baseUrl`: an emptied one this
 * process used before, or a new one (`create database` costs ~1 s on a busy server, and its
 * `drop` as much). Closing it ends its connections, empties it and keeps it when it is shown
 * as empty as a new one; otherwise it is dropped.
 */
export async function openPooledPostgres(baseUrl: string): Promise<Database> {
  const server = serverOf(baseUrl)
  const name = idle.get(server)?.pop() ?? (await createThrowaway(baseUrl))
  const database = openPostgresDatabase(databaseUrl(baseUrl, name))
  let closed = false
  return {
    ...database,
    async close() {
      if (closed) return
      closed = true
      await database.close()
      const kept = idle.get(server) ?? []
      if (kept.length < MAX_IDLE && (await emptyAgain(baseUrl, name))) {
        kept.push(name)
        idle.set(server, kept)
      } else await dropThrowaway(baseUrl, name)
    },
  }
}

async function createThrowaway(baseUrl: string): Promise<string> {
  const name = `${THROWAWAY_PREFIX}${RUN}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await onServer(baseUrl, (admin) => admin.unsafe(`create database "${name}"`))
  const server = serverOf(baseUrl)
  if (!emptyFingerprints.has(server))
    emptyFingerprints.set(server, onDatabase(baseUrl, name, readFingerprint))
  await emptyFingerprints.get(server)
  return name
}

async function dropThrowaway(baseUrl: string, name: string): Promise<void> {
  await onServer(baseUrl, (admin) => admin.unsafe(`drop database if exists "${name}" with (force)`))
}

/**
 * Ends every connection left to `name` (a second pool a test did not close), then empties it
 * ({@link EMPTY_AGAIN}); true when its fingerprint equals a new database's.
 */
async function emptyAgain(baseUrl: string, name: string): Promise<boolean> {
  try {
    await onServer(
      baseUrl,
      (admin) => admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = ${name} and pid <> pg_backend_pid()`,
    )
    const fingerprint = await onDatabase(baseUrl, name, async (sql) => {
      for (const statement of EMPTY_AGAIN) await sql.unsafe(statement)
      return readFingerprint(sql)
    })
    return fingerprint === (await emptyFingerprints.get(serverOf(baseUrl)))
  } catch {
    return false
  }
}

async function readFingerprint(sql: postgres.Sql): Promise<string> {
  const [row] = await sql.unsafe<{ f: string }[]>(fingerprintQuery(false))
  return row!.f
}

async function onServer<T>(baseUrl: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} })
  try {
    return await run(admin)
  } finally {
    await admin.end()
  }
}

function onDatabase<T>(baseUrl: string, name: string, run: (sql: postgres.Sql) => Promise<T>) {
  return onServer(databaseUrl(baseUrl, name), run)
}

function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** The server part of a URL: databases of one server can be handed out for any of its URLs. */
function serverOf(baseUrl: string): string {
  const url = new URL(baseUrl)
  url.pathname = '/'
  return url.toString()
}

/** Drops every throwaway database of run `run` on the server of `baseUrl` (the run's teardown). */
export async function dropRunDatabases(baseUrl: string, run: string): Promise<number> {
  return onServer(baseUrl, async (admin) => {
    const rows = await admin<{ datname: string }[]>`select datname from pg_database
      where datname like ${`${THROWAWAY_PREFIX}${run}\\_%`}`
    for (const { datname } of rows)
      await admin.unsafe(`drop database if exists "${datname}" with (force)`)
    return rows.length
  })
}
