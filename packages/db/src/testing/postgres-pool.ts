import postgres from 'postgres'
import type { Database } from '../database.js'
import { openPostgresDatabase } from '../postgres-database.js'
import { EMPTY_AGAIN, fingerprintQuery } from './empty-database.js'
import {
  backToPristine,
  type Kept,
  type Migrate,
  type Run,
  readPristine,
  takeFor,
} from './pristine-state.js'

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

/** A database this process keeps: empty, or as its migration left it. */
interface KeptDatabase extends Kept {
  name: string
}

/** Databases of this process ready to be handed out again, by server. */
const idle = new Map<string, KeptDatabase[]>()
/** At most this many idle databases are kept per server. */
const MAX_IDLE = 4
/** What an empty database of each server looks like, read from the first one made. */
const emptyFingerprints = new Map<string, Promise<string>>()

/**
 * A PostgreSQL database no other test uses, on the server of `baseUrl`; with `migrate`, as
 * `migrate` leaves an empty one. It is one this process used before, brought back to the state
 * it was handed out in (empty, or migrated: `pristine-state.ts`), or a new one (`create
 * database` costs ~1 s on a busy server, and its `drop` as much). Closing it ends its
 * connections and keeps it when it is shown back in that state (else emptied, else dropped).
 */
export async function openPooledPostgres(baseUrl: string, migrate?: Migrate): Promise<Database> {
  const server = serverOf(baseUrl)
  const kept = idle.get(server) ?? []
  idle.set(server, kept)
  const picked = (await idleDatabase(baseUrl, kept, migrate)) ?? {
    name: await createThrowaway(baseUrl),
  }
  const database = openPostgresDatabase(databaseUrl(baseUrl, picked.name))
  if (migrate && picked.migrated?.migrate !== migrate) {
    try {
      await migrate(database)
      picked.migrated = {
        migrate,
        pristine: await onDatabase(baseUrl, picked.name, (sql) => readPristine(run(sql), false)),
      }
    } catch (error) {
      await database.close()
      await dropThrowaway(baseUrl, picked.name)
      throw error
    }
  }
  let closed = false
  return {
    ...database,
    async close() {
      if (closed) return
      closed = true
      await database.close()
      if (kept.length < MAX_IDLE && (await handBack(baseUrl, picked))) kept.push(picked)
      else await dropThrowaway(baseUrl, picked.name)
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
 * A kept database for `migrate`: one it migrated, else an empty one, else the longest kept one
 * emptied (cheaper than creating one).
 */
async function idleDatabase(baseUrl: string, kept: KeptDatabase[], migrate: Migrate | undefined) {
  const picked = takeFor(kept, migrate)
  if (!picked?.migrated || picked.migrated.migrate === migrate) return picked
  picked.migrated = undefined
  if (await handBack(baseUrl, picked)) return picked
  await dropThrowaway(baseUrl, picked.name)
  return undefined
}

/**
 * Ends every connection left to the database (a second pool a test did not close), then brings
 * it back to the state its migration left ({@link backToPristine}), else empties it
 * ({@link EMPTY_AGAIN}); true when its fingerprint shows it is in that state.
 */
async function handBack(baseUrl: string, kept: KeptDatabase): Promise<boolean> {
  try {
    // pg_terminate_backend returns once signalled, and a backend dying of it still shows
    // (idle in transaction, say) to the next user: wait for each to be gone (PostgreSQL 14+).
    const ended = await onServer(
      baseUrl,
      (admin) => admin<{ gone: boolean }[]>`select pg_terminate_backend(pid, 10000) as gone
        from pg_stat_activity where datname = ${kept.name} and pid <> pg_backend_pid()`,
    )
    if (!ended.every((backend) => backend.gone)) return false
    const migrated = kept.migrated
    kept.migrated = undefined
    return await onDatabase(baseUrl, kept.name, async (sql) => {
      if (migrated?.pristine && (await backToPristine(run(sql), false, migrated.pristine))) {
        kept.migrated = migrated
        return true
      }
      for (const statement of EMPTY_AGAIN) await sql.unsafe(statement)
      return (await readFingerprint(sql)) === (await emptyFingerprints.get(serverOf(baseUrl)))
    })
  } catch {
    return false
  }
}

function run(sql: postgres.Sql): Run {
  return async <R>(text: string, parameters: readonly unknown[] = []) =>
    (await sql.unsafe(text, parameters as postgres.ParameterOrJSON<never>[])) as unknown as R[]
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
