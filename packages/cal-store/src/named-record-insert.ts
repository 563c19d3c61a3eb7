import { lockAllUntilCommit } from '@kcore/db'
import { sql } from 'kysely'
import { checkAuthor, rejectNul, requireName } from './input-guard.js'
import type { NamedRecordInput, PatchOf } from './named-record.js'
import {
  type AnyRow,
  columnsIn,
  type NamedRecordSpec,
  type NamedTable,
  type Row,
} from './named-record-spec.js'
import { slugify } from './slug.js'
import { allocateSlug, allocateSlugs } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import { textOrNull } from './text-or-null.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { slugLockKey } from './write-locks.js'

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
 * {@link findOrInsertNamed} for every record of `inputs`, in a handful of statements (one by
 * one, each record would cost a lock, a look-up, a slug and an insert): the
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
