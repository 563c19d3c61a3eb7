import { lockAllUntilCommit, lockUntilCommit } from '@kcore/db'
import type {
  ExpressionBuilder,
  Insertable,
  Selectable,
  SelectQueryBuilder,
  Updateable,
} from 'kysely'
import { sql } from 'kysely'
import { CalInTrashError, CalNotFoundError } from './errors.js'
import { idIn, inIdOrder, requestIds, validIds } from './id-list.js'
import { checkAuthor, rejectNul, requireName } from './input-guard.js'
import { modifiedConditions } from './modified-filter.js'
import type {
  NamedRecord,
  NamedRecordInput,
  NamedRecordListFilter,
  PatchOf,
} from './named-record.js'
import type { ListResult } from './page.js'
import { emptyList, pageOf } from './paging.js'
import type { CalSchema, EventTable, OrganizerTable, VenueTable } from './schema.js'
import { containsPattern, searchWords } from './search-words.js'
import { slugify } from './slug.js'
import { allocateSlug, allocateSlugs } from './slug-allocation.js'
import type { CalDb, StoreContext } from './store-context.js'
import { textOrNull } from './text-or-null.js'
import { transact } from './transact.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { slugLockKey } from './write-locks.js'

/** Every key of a row type, spelled out: one missing from `shape` does not compile. */
export function columnsOf<R>(shape: Record<keyof R, true>): (keyof R & string)[] {
  return Object.keys(shape) as (keyof R & string)[]
}

/** The columns of {@link NamedRecord}, which venues and organizers both have. */
export const NAMED_RECORD_COLUMNS = {
  id: true,
  author: true,
  status: true,
  created: true,
  modified: true,
  name: true,
  slug: true,
  description: true,
  image: true,
  phone: true,
  website: true,
} as const satisfies Record<keyof NamedRecord, true>

/** Tables of records with a name, a slug, a status and an author: venues and organizers. */
export type NamedTable = 'cal_venue' | 'cal_organizer'

/** A stored row of `T`: the record itself (venues and organizers are their rows). */
type Row<T extends NamedTable> = Selectable<CalSchema[T]>

/** A stored row of either table, as the shared queries see it. */
type AnyRow = Selectable<VenueTable> | Selectable<OrganizerTable>

/**
 * `spec`'s columns as either table's: Kysely types only the columns the two tables share, so
 * the rows read with these are the record of `T` (see `asRecord`).
 */
const columnsIn = (spec: { columns: readonly string[] }) =>
  spec.columns as readonly (keyof AnyRow & string)[]

/** Column changes of an update of either table. */
type NamedChanges = Updateable<VenueTable & OrganizerTable>

/** The listed row, aliased `v` in list queries (every column of either table). */
type ListedRow = Selectable<VenueTable> & Selectable<OrganizerTable>

/** The optional (nullable) text columns of either table. */
type TextColumn = {
  [K in keyof ListedRow]: ListedRow[K] extends string | null
    ? null extends ListedRow[K]
      ? K
      : never
    : never
}[keyof ListedRow]

/** Where venues and organizers differ; the rest of their repositories is the same code. */
export interface NamedRecordSpec<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
> {
  table: T
  /**
   * Every column of the table, named in each query instead of `*`: a column another process's
   * migration adds then changes no prepared statement's result (see `@kcore/db`).
   */
  columns: readonly (keyof Row<T> & string)[]
  kind: 'venue' | 'organizer'
  /** How a validation message names one: `a venue`. */
  what: string
  /** Optional text columns: `''` is stored as `null`. */
  textFields: readonly (TextColumn & keyof I)[]
  /** Columns every `search` word is matched against (ILIKE, any of them). */
  searched: readonly ('name' | TextColumn)[]
  /** Checks and values of the table's own other columns, on create. */
  insertValues?(input: I): Partial<Insertable<CalSchema[T]>>
  /** Checks and changes of the table's own other columns, on update. */
  patchChanges?(patch: P, changes: NamedChanges): void
  /** Ids of the records event `event` names (list filter `event`). */
  ofEvent(
    db: CalDb,
    event: number,
  ): SelectQueryBuilder<CalSchema, keyof CalSchema, Record<string, number | null>>
  /** Events (any status, as `e`, selecting `e.id`) naming the listed record `v`. */
  eventsOf(
    eb: ExpressionBuilder<CalSchema & { v: ListedRow }, 'v'>,
  ): SelectQueryBuilder<CalSchema & { e: EventTable }, 'e', { id: number }>
  /** Ids (as `event_id`) of the events linking record `id`. */
  linkedEvents(
    db: CalDb,
    id: number,
  ): SelectQueryBuilder<CalSchema, keyof CalSchema, { event_id: number }>
  /** Removes every event's link to record `id` (on trash: events render without it). */
  unlink(trx: CalDb, id: number): Promise<void>
}

/**
 * Locks (`FOR UPDATE`, id order) the events linking record `id`, before the record itself;
 * returns their ids.
 */
async function lockLinkedEvents<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, spec: NamedRecordSpec<T, I, P>, id: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('cal_event')
    .select('id')
    .where('id', 'in', spec.linkedEvents(trx, id))
    .orderBy('id')
    .forUpdate()
    .execute()
  return rows.map((r) => r.id)
}

/**
 * Trashes record `id` inside `trx` when it is not trashed yet (one conditional UPDATE decides,
 * so of concurrent trashes one wins) and unlinks it from every event: the spec's "events
 * render without it" and "`?venue=` matches nothing" then hold in the data itself, for every
 * reader. The linked events are locked first, in id order: event writes lock their event row
 * before the records they name, so taking the record first would deadlock with them. Returns
 * the trashed row, or `undefined` when there was nothing to trash.
 */
async function trashAndUnlink<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(
  trx: CalDb,
  spec: NamedRecordSpec<T, I, P>,
  id: number,
  changes: NamedChanges,
): Promise<AnyRow | undefined> {
  await lockLinkedEvents(trx, spec, id)
  const row = await trx
    .updateTable(spec.table as NamedTable)
    .set({ ...changes, status: 'trash' })
    .where('id', '=', id)
    .where('status', '<>', 'trash')
    .returning(columnsIn(spec))
    .executeTakeFirst()
  if (row) {
    await spec.unlink(trx, id)
  }
  return row as AnyRow | undefined
}

/**
 * The locks {@link findOrInsertNamed} takes for `input`: its name, and the slug a new record
 * would take (inserting takes that one; holding it first keeps one order). None for a name
 * that fails validation, which the write then rejects.
 */
function nameLockKeys(
  spec: { table: NamedTable; kind: string },
  input: NamedRecordInput,
): string[] {
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (name === '') return []
  return [
    `cal:name:${spec.table}:${name.toLowerCase()}`,
    slugLockKey(spec.table, slugify(input.slug || name, spec.kind)),
  ]
}

/**
 * Takes, in one global order, the locks of every `inputs` record {@link findOrInsertNamed}
 * will resolve: call it before resolving several in one transaction.
 */
export async function lockNames<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, spec: NamedRecordSpec<T, I, P>, inputs: readonly I[]): Promise<void> {
  await lockAllUntilCommit(
    trx,
    inputs.flatMap((input) => nameLockKeys(spec, input)),
  )
}

/** Creates a record inside the open transaction `trx`. */
export async function insertNamed<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, now: Date, spec: NamedRecordSpec<T, I, P>, input: I): Promise<Row<T>> {
  return (await insertRow(trx, now, spec, input)) as Row<T>
}

async function insertRow<T extends NamedTable, I extends NamedRecordInput, P extends PatchOf<I>>(
  trx: CalDb,
  now: Date,
  spec: NamedRecordSpec<T, I, P>,
  input: I,
): Promise<AnyRow> {
  const table: NamedTable = spec.table
  rejectNul(input)
  const name = requireName(spec.kind, input.name, spec.what)
  const base = slugify(input.slug || name, spec.kind)
  const row = await retryOnUniqueViolation(
    trx,
    (c) => c.includes('slug'),
    async () => {
      const slug = await allocateSlug(trx, table, base)
      return trx
        .insertInto(table)
        .values(rowValues(now, spec, input, name, slug))
        .returning(columnsIn(spec))
        .executeTakeFirstOrThrow()
    },
  )
  return row as AnyRow
}

/** The columns of a new record made from `input` (name checked, slug chosen). */
function rowValues<T extends NamedTable, I extends NamedRecordInput, P extends PatchOf<I>>(
  now: Date,
  spec: NamedRecordSpec<T, I, P>,
  input: I,
  name: string,
  slug: string,
) {
  return {
    author: checkAuthor(input.author),
    status: input.status ?? 'publish',
    created: input.created ?? now,
    modified: input.created ?? now,
    name,
    slug,
    ...spec.insertValues?.(input),
    ...Object.fromEntries(
      spec.textFields.map((f) => [f, textOrNull(input[f] as string | null | undefined)]),
    ),
  }
}

/**
 * {@link findOrInsertNamed} for every record of `inputs`, in a handful of statements (an event
 * naming 1,000 inline organizers took 1,000 rounds of lock, look-up, slug and insert): the
 * locks in one statement, the live records named like them read (and held `FOR SHARE`) in one,
 * the missing ones inserted in one (`on conflict do nothing`); a row that still clashes takes
 * the one-by-one path. Returns the ids in the order of `inputs`.
 */
export async function findOrInsertNamedMany<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, now: Date, spec: NamedRecordSpec<T, I, P>, inputs: readonly I[]): Promise<number[]> {
  const table: NamedTable = spec.table
  const names = inputs.map((input) => {
    rejectNul(input)
    return requireName(spec.kind, input.name, spec.what)
  })
  if (names.length === 0) return []
  await lockNames(trx, spec, inputs)
  const keys = [...new Set(names.map((n) => n.toLowerCase()))]
  const live = await trx
    .selectFrom(table)
    .select(['id', sql<string>`lower(name)`.as('key')])
    .where(sql<boolean>`lower(name) = any(${keys}::text[])`)
    .where('status', '<>', 'trash')
    .orderBy('id')
    .forShare()
    .execute()
  const byKey = new Map<string, number>()
  for (const row of live) if (!byKey.has(row.key)) byKey.set(row.key, row.id)
  const fresh = new Map<string, { input: I; name: string }>()
  inputs.forEach((input, i) => {
    const name = names[i] as string
    const key = name.toLowerCase()
    if (!byKey.has(key) && !fresh.has(key)) fresh.set(key, { input, name })
  })
  if (fresh.size > 0) {
    const wanted = [...fresh.values()]
    const slugs = await allocateSlugs(
      trx,
      table,
      wanted.map(({ input, name }) => slugify(input.slug || name, spec.kind)),
    )
    const inserted = await trx
      .insertInto(table)
      .values(
        wanted.map(({ input, name }, i) => rowValues(now, spec, input, name, slugs[i] as string)),
      )
      .onConflict((oc) => oc.doNothing())
      .returning(['id', sql<string>`lower(name)`.as('key')])
      .execute()
    for (const row of inserted) if (!byKey.has(row.key)) byKey.set(row.key, row.id)
  }
  const ids: number[] = []
  for (const [i, input] of inputs.entries()) {
    const key = (names[i] as string).toLowerCase()
    let id = byKey.get(key)
    if (id === undefined) {
      id = await findOrInsertNamed(trx, now, spec, input)
      byKey.set(key, id)
    }
    ids.push(id)
  }
  return ids
}

/**
 * The record named like `input` (case-insensitive, not trashed, lowest id) or a new one made
 * from `input`: how inline venue and organizer objects on event writes resolve.
 */
export async function findOrInsertNamed<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
>(trx: CalDb, now: Date, spec: NamedRecordSpec<T, I, P>, input: I): Promise<number> {
  rejectNul(input)
  const name = requireName(spec.kind, input.name, spec.what)
  // Concurrent event writes naming the same new record would each insert one otherwise.
  await lockNames(trx, spec, [input])
  // Held FOR SHARE until commit, the status re-checked after any wait: a concurrent trash
  // either waits for this write (and then unlinks it) or is seen, as for a reference by id.
  const existing = await trx
    .selectFrom(spec.table as NamedTable)
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .where('status', '<>', 'trash')
    .orderBy('id')
    .limit(1)
    .forShare()
    .executeTakeFirst()
  return existing ? existing.id : (await insertRow(trx, now, spec, input)).id
}

/** The repository of `spec`'s records over `ctx`. */
export function createNamedRecordRepository<
  T extends NamedTable,
  I extends NamedRecordInput,
  P extends PatchOf<I>,
  F extends NamedRecordListFilter,
>(ctx: StoreContext, spec: NamedRecordSpec<T, I, P>) {
  const { db } = ctx
  const { table, kind } = spec as { table: NamedTable; kind: NamedRecordSpec<T, I, P>['kind'] }
  const columns = columnsIn(spec)
  const asRecord = (row: object) => row as Row<T>

  async function get(id: number): Promise<Row<T> | undefined> {
    if (validIds([id]).length === 0) return undefined
    const row = await db.selectFrom(table).select(columns).where('id', '=', id).executeTakeFirst()
    return row && asRecord(row)
  }

  async function getMany(ids: readonly number[]): Promise<Row<T>[]> {
    const wanted = validIds(ids)
    if (wanted.length === 0) return []
    const rows = await db.selectFrom(table).select(columns).where(idIn('id', wanted)).execute()
    return inIdOrder(ids, rows).map(asRecord)
  }

  async function update(id: number, patch: P): Promise<Row<T>> {
    rejectNul(patch)
    if (validIds([id]).length === 0) throw new CalNotFoundError(kind, id)
    const wantsSlug = patch.slug !== undefined && patch.slug !== null && patch.slug !== ''
    const base = wantsSlug ? slugify(patch.slug as string, kind) : undefined
    return transact(ctx, async (trx) => {
      // Slug lock before row lock, the order event writes take them in (they lock a new
      // record's slug, then share-lock the rows they reference): the other order deadlocks.
      if (base !== undefined) await lockUntilCommit(trx, slugLockKey(table, base))
      // A PATCH to the trash unlinks (below): its events are locked before the record too.
      if (patch.status === 'trash') await lockLinkedEvents(trx, spec, id)
      const current = await trx
        .selectFrom(table)
        .select(columns)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst()
      if (!current) throw new CalNotFoundError(kind, id)
      const changes: NamedChanges = { modified: ctx.now() }
      if (patch.name !== undefined) changes.name = requireName(kind, patch.name, spec.what)
      if (patch.status !== undefined && patch.status !== null) changes.status = patch.status
      if (patch.author !== undefined) changes.author = checkAuthor(patch.author)
      spec.patchChanges?.(patch, changes)
      for (const f of spec.textFields) {
        const value = (patch as Partial<Record<TextColumn, string | null>>)[f]
        if (value !== undefined) changes[f] = textOrNull(value)
      }
      if (changes.status === 'trash' && current.status !== 'trash') {
        // A PATCH to the trash is a trash: it unlinks the record too.
        delete changes.status
        const trashed = await trashAndUnlink(trx, spec, id, {})
        if (!trashed) throw new CalInTrashError(kind, id)
      }
      const row = await retryOnUniqueViolation(
        trx,
        (c) => c.includes('slug'),
        async () => {
          if (base !== undefined && base !== current.slug) {
            changes.slug = await allocateSlug(trx, table, base, { excludeId: id })
          }
          return trx
            .updateTable(table)
            .set(changes)
            .where('id', '=', id)
            .returning(columns)
            .executeTakeFirstOrThrow()
        },
      )
      return asRecord(row)
    })
  }

  async function list(filter: F = {} as F): Promise<ListResult<Row<T>>> {
    rejectNul(filter)
    const statuses = filter.status ?? ['publish']
    if (statuses.length === 0) return emptyList()
    let q = db
      .selectFrom(sql<ListedRow>`${sql.table(table)}`.as('v'))
      .where('v.status', 'in', statuses)
    for (const condition of modifiedConditions(filter, 'v.modified')) q = q.where(condition)
    for (const word of searchWords(filter.search)) {
      const pattern = containsPattern(word)
      q = q.where((eb) => eb.or(spec.searched.map((f) => eb(`v.${f}`, 'ilike', pattern))))
    }
    if (filter.include) {
      const ids = requestIds(filter.include, 'include')
      if (ids.length === 0) return emptyList()
      q = q.where('v.id', 'in', ids)
    }
    if (filter.event !== undefined) {
      const event = filter.event
      if (validIds([event]).length === 0) return emptyList()
      q = q.where('v.id', 'in', spec.ofEvent(db, event))
    }
    if (filter.has_events !== undefined) {
      const has = filter.has_events
      q = q.where((eb) => {
        const sub = eb.exists(spec.eventsOf(eb).where('e.status', '=', 'publish'))
        return has ? sub : eb.not(sub)
      })
    }
    if (filter.upcoming_after !== undefined) {
      const after = filter.upcoming_after
      q = q.where((eb) =>
        eb.exists(
          spec.eventsOf(eb).where('e.status', '=', 'publish').where('e.end_utc', '>', after),
        ),
      )
    }
    const { limit, offset } = pageOf(filter)
    const [count, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      q
        .select(columns.map((c) => `v.${c}` as const))
        .orderBy((eb) => eb.fn('lower', ['v.name']))
        .orderBy('v.id')
        .limit(limit)
        .offset(offset)
        .execute(),
    ])
    return { items: rows.map(asRecord), total: Number(count.n) }
  }

  return {
    create: (input: I) => transact(ctx, (trx) => insertNamed(trx, ctx.now(), spec, input)),
    update,
    async trash(id: number): Promise<Row<T>> {
      if (validIds([id]).length === 0) throw new CalNotFoundError(kind, id)
      const row = await transact(ctx, (trx) =>
        trashAndUnlink(trx, spec, id, { modified: ctx.now() }),
      )
      if (row) return asRecord(row)
      if (await get(id)) throw new CalInTrashError(kind, id)
      throw new CalNotFoundError(kind, id)
    },
    get,
    async getBySlug(slug: string): Promise<Row<T> | undefined> {
      if (slug.includes('\u0000')) return undefined
      const row = await db
        .selectFrom(table)
        .select(columns)
        .where('slug', '=', slug)
        .executeTakeFirst()
      return row && asRecord(row)
    },
    getMany,
    list,
  }
}
