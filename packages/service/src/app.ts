import { createCalStore } from '@cal/store'
import { type Database, openDatabase } from '@kcore/db'
import { createProvider } from '@kcore/engine'
import { createHandler, type Handler } from '@kcore/http-adapter'
import { createKcoreStore, createScheduler, createSyncRunner, type KcoreStore } from '@kcore/store'
import pkg from '../package.json' with { type: 'json' }
import type { Config } from './config.js'
import { createLogger, type Logger } from './logger.js'
import { seedEmptyStores } from './seed.js'

/** A ready service: the handler over migrated (and, on first start, seeded) stores. */
export interface App {
  readonly handler: Handler
  readonly database: Database
  readonly kcoreStore: KcoreStore
  /**
   * Tells the app the port it listens on: without `publicUrl`, links use
   * `http://localhost:PORT` (the configured port until then, which may be 0).
   */
  listening(port: number): void
  /** Stops the scheduler and closes the database. */
  close(): Promise<void>
}

/** Opens the configured database and runs both stores' migrations. */
export async function openStores(config: Config, log?: Logger) {
  const database = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl, connectTimeoutMs: config.dbConnectTimeoutMs, log }
      : { dataDir: config.dataDir, log },
  )
  try {
    const kcore = createKcoreStore(database)
    const cal = createCalStore(database)
    await kcore.migrate()
    await cal.migrate()
    return { database, kcore, cal }
  } catch (error) {
    await database.close()
    throw error
  }
}

/**
 * Builds the whole service from a validated {@link Config}: the host (Node, Bun, Deno) only
 * has to serve `app.handler`. Seeds sample data into an empty embedded database unless
 * `config.seed` is false.
 */
export async function createApp(
  config: Config,
  log: Logger = createLogger(config.logLevel),
): Promise<App> {
  const { database, kcore, cal } = await openStores(config, log)
  try {
    if (config.seed && database.dialect === 'pglite') {
      await seedEmptyStores({ kcore, cal }, { seedDir: config.seedDir, now: new Date(), log })
    }
    let port = config.port
    // Background work is the composition root's: the sync runner (shared by refresh requests
    // and the scheduler, so they never overlap here) and the scheduler, closed with the app.
    const runner = createSyncRunner(kcore, createProvider({ baseUrl: config.providerUrl }), {
      deadlineMs: config.refreshDeadlineMs,
      onError: (error) => log.error('snapshot not stored', { error: detailOf(error) }),
    })
    const scheduler = createScheduler(
      { enabled: config.schedulerEnabled, schedule: config.schedule },
      {
        runner,
        now: () => new Date(),
        onError: (error) => log.error('scheduled update failed', { error: detailOf(error) }),
      },
    )
    const handler = createHandler({
      publicUrl: config.publicUrl ?? (() => `http://localhost:${port}`),
      kcore: {
        store: kcore,
        runner,
        scheduler,
        version: pkg.version,
        adminToken: config.adminToken,
      },
      cal: { store: cal, tokens: config.calTokens, timezone: config.calTimezone },
      corsOrigins: config.corsOrigins,
      log: (entry) => log.info('request', { ...entry }),
      onError: (error) => log.error('request failed', { error: detailOf(error) }),
    })
    return {
      handler,
      database,
      kcoreStore: kcore,
      listening(actual) {
        port = actual
      },
      async close() {
        await scheduler.close()
        await handler.close()
        await database.close()
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** What the log keeps of an error: its stack (with the cause's), else its text. */
function detailOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause === undefined ? '' : `\ncaused by: ${detailOf(error.cause)}`
  return `${error.stack ?? error.message}${cause}`
}
