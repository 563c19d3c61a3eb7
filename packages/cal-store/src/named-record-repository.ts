import { lockUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import { CalInTrashError, CalNotFoundError } from './errors.js'
import { idIn, inIdOrder, requestIds, validIds } from './id-list.js'
import { checkAuthor, rejectNul, requireName } from './input-guard.js'
import { modifiedConditions } from './modified-filter.js'
import type { NamedRecordInput, NamedRecordListFilter, PatchOf } from './named-record.js'
import { insertNamed } from './named-record-insert.js'
import {
  columnsIn,
  type ListedRow,
  type NamedChanges,
  type NamedRecordSpec,
  type NamedTable,
  type Row,
  type TextColumn,
} from './named-record-spec.js'
import { lockLinkedEvents, trashAndUnlink } from './named-record-trash.js'
import type { ListResult } from './page.js'
import { emptyList, pageOf } from './paging.js'
import { containsPattern, searchWords } from './search-words.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { StoreContext } from './store-context.js'
import { textOrNull } from './text-or-null.js'
import { transact } from './transact.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { slugLockKey } from './write-locks.js'

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
