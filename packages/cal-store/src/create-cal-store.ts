import { type Database, revisionReads } from '@kcore/db'
import { sql } from 'kysely'
import type { CalReader, CalStore } from './cal-store.js'
import {
  DEFAULT_CHANGES_PAGE,
  MAX_CHANGES_PAGE,
  querySyncSecret,
  readChanges,
  readInitial,
} from './changes.js'
import { CalSyncTokenExpiredError, feedTokens } from './changes-token.js'
import { readCommittedChanges } from './committed-changes.js'
import { CalValidationError } from './errors.js'
import type { CalEvent, EventListFilter } from './event.js'
import { listEvents, ModelMoved } from './event-list.js'
import { createEventListModel } from './event-list-model.js'
import { readEventRelations } from './event-relations.js'
import { createEventRepository } from './event-repository.js'
import { migrateCalStore } from './migrate.js'
import type { OrganizerListFilter } from './organizer.js'
import { createOrganizerRepository } from './organizer-repository.js'
import type { ListResult } from './page.js'
import type { CalChangeRecords } from './record-change.js'
import { queryRevision, REVISION_CHANNEL } from './revision.js'
import type { CalSchema } from './schema.js'
import { type CalDb, type StoreContext, withCalTables } from './store-context.js'
import type { TermListFilter } from './term.js'
import { createTermRepository } from './term-repository.js'
import { checkTokenHistory, positionSigner } from './token-history.js'
import type { VenueListFilter } from './venue.js'
import { createVenueRepository } from './venue-repository.js'

/** Options of {@link createCalStore}. */
export interface CalStoreOptions {
  /** Clock for `created`/`modified` stamps; default `() => new Date()`. */
  now?: () => Date
  /**
   * Days the changes feed keeps its history (default 30): a token older than that, or whose
   * changes are no longer kept, is expired ({@link CalReader.changes}). `migrate()` stores it
   * in the database (`cal_sync.retention_days`), whose commits trim the history by it.
   */
  changesRetentionDays?: number
}

const DAY_MS = 86_400_000

/**
 * Wraps an open database into a {@link CalStore}. Call `migrate()` once before use. The same
 * code runs on PostgreSQL and PGlite.
 */
export function createCalStore(database: Database, options: CalStoreOptions = {}): CalStore {
  const db: CalDb = database.db.withTables<CalSchema>()
  const ctx: StoreContext = {
    db,
    now: options.now ?? (() => new Date()),
    revision: revisionReads(database, REVISION_CHANNEL, () => queryRevision(db)),
  }
  const model = createEventListModel()

  const retentionDays = options.changesRetentionDays ?? 30
  if (!(retentionDays > 0 && retentionDays < 100_000)) {
    throw new RangeError('changesRetentionDays must be a positive number of days')
  }
  // The secret never changes once migrated: read once, on the first token made or read.
  let tokens: Promise<ReturnType<typeof feedTokens>> | undefined
  const feed = () => {
    tokens ??= querySyncSecret(db).then(feedTokens, (error) => {
      tokens = undefined
      throw error
    })
    return tokens
  }

  /**
   * `read` and the revision it read at, of one snapshot: a read-only REPEATABLE READ
   * transaction (on PGlite it also holds the one session, so no commit lands between its
   * statements).
   */
  function inSnapshot<T>(read: (trx: CalDb, revision: number) => Promise<T>) {
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const revision = await queryRevision(trx)
        return { value: await read(trx, revision), revision }
      })
  }

  /**
   * An event list and `read`'s reads of it, in one snapshot whose revision the list model is
   * at exactly. The model moves at most as far as the newest snapshot a list asked it at, so
   * a list that finds it already past its own snapshot reads again in a newer one, which the
   * model is not past.
   */
  async function eventList<T>(
    filter: EventListFilter,
    read: (page: ListResult<CalEvent>, trx: CalDb) => Promise<T>,
  ): Promise<{ value: T; revision: number }> {
    for (;;) {
      const { value, revision } = await inSnapshot(async (trx, revision) => {
        const view = await model.exactly(revision, trx)
        if (!view) return undefined
        try {
          return { page: await read(await listEvents(trx, filter, view), trx) }
        } catch (error) {
          if (error instanceof ModelMoved) return undefined
          throw error
        }
      })
      if (value) return { value: value.page, revision }
    }
  }

  async function reader(): Promise<CalReader> {
    const at = await ctx.revision()
    const revision = String(at)
    /** The revision the reader's last list was read at: what its token stands at. */
    let listedAt: number | undefined
    /** A list of the reader's: read in one snapshot, which its token then stands at. */
    const listed = async <R>(list: Promise<{ value: R; revision: number }>): Promise<R> => {
      const read = await list
      listedAt = read.revision
      return read.value
    }
    const inTrx = (trx: CalDb): StoreContext => ({ ...ctx, db: trx })
    return {
      revision,
      events: {
        list: (filter: EventListFilter = {}) => listed(eventList(filter, async (page) => page)),
        listWith: (filter, read) =>
          listed(eventList(filter, (page, trx) => read(page, recordsIn(inTrx(trx))))),
      },
      venues: {
        list: (filter?: VenueListFilter) =>
          listed(inSnapshot((trx) => createVenueRepository(inTrx(trx)).list(filter))),
      },
      organizers: {
        list: (filter?: OrganizerListFilter) =>
          listed(inSnapshot((trx) => createOrganizerRepository(inTrx(trx)).list(filter))),
      },
      categories: {
        list: (filter?: TermListFilter) =>
          listed(
            inSnapshot((trx) =>
              createTermRepository(inTrx(trx), 'cal_event_category').list(filter),
            ),
          ),
      },
      tags: {
        list: (filter?: TermListFilter) =>
          listed(
            inSnapshot((trx) => createTermRepository(inTrx(trx), 'cal_event_tag').list(filter)),
          ),
      },
      syncToken: async () =>
        positionSigner(db, await feed())({ revision: listedAt ?? at }, ctx.now()),
      async changes({ since, limit = DEFAULT_CHANGES_PAGE, view = 'public' }) {
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES_PAGE) {
          throw new CalValidationError('limit', `must be an integer 1–${MAX_CHANGES_PAGE}`)
        }
        const tokens = await feed()
        const signer = positionSigner(db, tokens)
        const now = ctx.now()
        if (since === undefined) {
          return readInitial(db, signer, { revision: at, initial: true }, at, limit, view, now)
        }
        const token = tokens.decode(since)
        const { position, issued } = token
        // The token's age alone expires it, even when nothing was written (or trimmed) since.
        if (now.getTime() - issued.getTime() > retentionDays * DAY_MS) {
          throw new CalSyncTokenExpiredError(`it is older than ${retentionDays} days`)
        }
        await checkTokenHistory(db, token)
        return position.initial
          ? readInitial(db, signer, position, at, limit, view, issued)
          : readChanges(db, signer, position, at, limit, view, now)
      },
    }
  }

  return {
    dialect: database.dialect,
    ping: () => database.ping(),
    tryWithLock: (name, fn) => database.tryWithLock(name, fn),
    async migrate() {
      await migrateCalStore(db)
      // The database trims the feed's history on commit (0013): it keeps what this store says.
      await sql`update cal_sync set retention_days = ${retentionDays}
        where retention_days <> ${retentionDays}`.execute(db)
    },
    async isEmpty() {
      const { rows } = await sql<{ any: boolean }>`select (
          exists (select 1 from cal_event) or exists (select 1 from cal_venue)
          or exists (select 1 from cal_organizer) or exists (select 1 from cal_term)
        ) as any`.execute(db)
      return !rows[0]?.any
    },
    reader,
    async committedChanges(after, revisions, trx) {
      // The follower's transaction knows its own tables; the calendar's are added to it.
      const inTrx: StoreContext = trx ? { ...ctx, db: withCalTables(trx) } : ctx
      const read = await readCommittedChanges(inTrx.db, after, revisions)
      return { ...read, records: recordsIn(inTrx) }
    },
    events: {
      ...createEventRepository(ctx),
      list: async (filter) => (await reader()).events.list(filter),
    },
    venues: createVenueRepository(ctx),
    organizers: createOrganizerRepository(ctx),
    categories: createTermRepository(ctx, 'cal_event_category'),
    tags: createTermRepository(ctx, 'cal_event_tag'),
    relations: (events) => readEventRelations(db, events),
  }
}

/** The records' reads over `ctx` (a transaction: they see what it sees). */
function recordsIn(ctx: StoreContext): CalChangeRecords {
  return {
    events: createEventRepository(ctx),
    venues: createVenueRepository(ctx),
    organizers: createOrganizerRepository(ctx),
    categories: createTermRepository(ctx, 'cal_event_category'),
    tags: createTermRepository(ctx, 'cal_event_tag'),
    relations: (events) => readEventRelations(ctx.db, events),
  }
}
