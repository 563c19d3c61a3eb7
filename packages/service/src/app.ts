import { createCalStore } from '@cal/store'
import { type Database, openDatabase } from '@kcore/db'
import { createProvider } from '@kcore/engine'
import { calWebhookSource, createHandler, type Handler, WEBHOOK_EVENTS } from '@kcore/http-adapter'
import { createKcoreStore, createScheduler, createSyncRunner, type KcoreStore } from '@kcore/store'
import { createWebhookSender, type WebhookSender, webhookSubscriptions } from '@kcore/webhooks'
import pkg from '../package.json' with { type: 'json' }
import type { Config } from './config.js'
import { createLogger, type Logger } from './logger.js'
import { seedEmptyStores } from './seed.js'
import { warmUp } from './warm-up.js'

/** A ready service: the handler over migrated (and, on first start, seeded) stores. */
export interface App {
  readonly handler: Handler
  readonly database: Database
  readonly kcoreStore: KcoreStore
  /** Sends the webhook messages (one per process, started with the app, closed with it). */
  readonly webhookSender: WebhookSender
  /**
   * Tells the app the port it listens on: without `publicUrl`, links use
   * `http://localhost:PORT` (the configured port until then, which may be 0).
   */
  listening(port: number): void
  /** Stops the scheduler and the webhook sender, then closes the database. */
  close(): Promise<void>
}

/**
 * Opens the configured database and runs both stores' migrations (the webhook outbox's with
 * them). Calendar writes write nothing for webhooks: the app's sender makes the messages from
 * the committed changes (`calWebhookSource`).
 */
export async function openStores(config: Config, log?: Logger) {
  const database = await openDatabase(
    config.databaseUrl
      ? {
          url: config.databaseUrl,
          connectTimeoutMs: config.dbConnectTimeoutMs,
          preparedStatements: config.dbPreparedStatements,
          log,
        }
      : { dataDir: config.dataDir, log },
  )
  try {
    const kcore = createKcoreStore(database)
    const cal = createCalStore(database, {
      changesRetentionDays: config.calChangesRetentionDays,
    })
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
 * `config.seed` is false, and resolves once the read path is warm ({@link warmUp}), so a host
 * that listens then answers its first client at full speed.
 */
export function createApp(
  config: Config,
  log: Logger = createLogger(config.logLevel),
): Promise<App> {
  return assembleApp(config, log, warmUp)
}

/** {@link createApp} with its warm-up given (the package's tests give one that fails). */
export async function assembleApp(config: Config, log: Logger, warm: typeof warmUp): Promise<App> {
  let port = config.port
  const publicUrl = () => config.publicUrl ?? `http://localhost:${port}`
  const { database, kcore, cal } = await openStores(config, log)
  let warming = true
  try {
    if (config.seed && database.dialect === 'pglite') {
      await seedEmptyStores(
        { kcore, cal },
        { seedDir: config.seedDir, seedNames: config.seedNames, now: new Date(), log },
      )
    }
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
    const allowPrivate = config.webhooksAllowPrivate
    const webhooks = webhookSubscriptions(database, { events: WEBHOOK_EVENTS, allowPrivate })
    const sender = createWebhookSender(database, {
      allowPrivate,
      sources: [calWebhookSource(cal, { publicUrl, timezone: config.calTimezone })],
      onError: (error) => log.error('webhook sending failed', { error: detailOf(error) }),
    })
    const served = createHandler({
      publicUrl: config.publicUrl ?? publicUrl,
      kcore: {
        store: kcore,
        runner,
        scheduler,
        version: pkg.version,
        adminToken: config.adminToken,
        webhooks,
      },
      cal: { store: cal, tokens: config.calTokens, timezone: config.calTimezone, webhooks },
      corsOrigins: config.corsOrigins,
      // The start's own warm-up request is no client's.
      log: (entry) => {
        if (!warming) log.info('request', { ...entry })
      },
      onError: (error) => log.error('request failed', { error: detailOf(error) }),
    })
    // A write that succeeded may have written messages: send them now, not at the next poll
    // (the scheduler's ingests wait for it, a second at most).
    const handler: Handler = Object.assign(
      async (request: Request) => {
        const response = await served(request)
        if (!READS.has(request.method) && response.ok) sender.notify()
        return response
      },
      { close: () => served.close() },
    )
    const warmStart = performance.now()
    try {
      await warm(served)
    } catch (error) {
      // Nothing else is started yet but the scheduler (and the handler's own timers).
      await scheduler.close()
      await served.close()
      throw error
    }
    warming = false
    log.debug('warmed up', { ms: Math.round(performance.now() - warmStart) })
    sender.start()
    return {
      handler,
      database,
      kcoreStore: kcore,
      webhookSender: sender,
      listening(actual) {
        port = actual
      },
      async close() {
        await scheduler.close()
        await handler.close()
        // Before the database: it records what it was sending (or releases it) there.
        await sender.close()
        await database.close()
      },
    }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** Methods that never write. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** What the log keeps of an error: its stack (with the cause's), else its text. */
function detailOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause === undefined ? '' : `\ncaused by: ${detailOf(error.cause)}`
  return `${error.stack ?? error.message}${cause}`
}
