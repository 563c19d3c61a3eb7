/**
 * A migrated database brought back to the state its migration left, for the harness that hands
 * migrated databases out again (`TestDatabase.open(migrate)`): migrating costs a store tens of
 * statements per open, which most tests pay only to start from the same schema.
 *
 * Right after the migration the harness records {@link readPristine}: a fingerprint of the
 * catalog (every definition a test could change, bodies included) and of every table's rows,
 * the rows the migration itself wrote, and every sequence's position. Bringing the database
 * back truncates every table, puts those rows back and resets the sequences, with triggers off
 * (`session_replication_role = replica`: a restore writes no change log and sends no notice);
 * it counts only when the fingerprint is then the recorded one. Otherwise the database is
 * emptied and migrated again, as before.
 */

import type { Database } from '../database.js'

/**
 * Brings an empty database to the schema a test starts from (a store's `migrate`). One function
 * per schema, kept in a module (its identity is what databases are handed out again by).
 */
export type Migrate = (database: Database) => Promise<void>

/** A kept database (or engine) of a pool: empty, or migrated and as its migration left it. */
export interface Kept {
  migrated?: { migrate: Migrate; pristine: Pristine | undefined }
}

/**
 * Takes the kept entry to hand out for `migrate` out of `kept`: one migrated by it, else an
 * empty one, else the longest kept one (the caller empties it: cheaper than making a new one).
 */
export function takeFor<K extends Kept>(kept: K[], migrate: Migrate | undefined): K | undefined {
  const at = (found: number) => (found < 0 ? undefined : kept.splice(found, 1)[0])
  return (
    at(kept.findIndex((k) => k.migrated?.migrate === migrate)) ??
    at(kept.findIndex((k) => !k.migrated)) ??
    kept.shift()
  )
}

/** Runs one statement and gives its rows. */
export type Run = <R>(text: string, parameters?: readonly unknown[]) => Promise<R[]>

/** The state right after a migration: what to compare with, and how to get back to it. */
export interface Pristine {
  readonly fingerprint: string
  /** One statement that brings a used database back to it. */
  readonly restore: string
}

/** Schemas a test's objects live in (not the system's). */
const USER_NAMESPACE = `n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
  and n.nspname not like 'pg_temp_%' and n.nspname not like 'pg_toast_temp_%'`

/**
 * Everything a test could change in the catalog, as one text: schemas, extensions, relations
 * with their columns, defaults, constraints, indexes, triggers, views and policies, functions
 * with their bodies, types, sequences with their positions, and the cluster-wide leftovers
 * (roles when the cluster is the test's own).
 */
function catalogQuery(roles: boolean): string {
  // One row per object, its fields as a record's text (nulls and `"char"` fields included).
  const agg = (fields: string, from: string) =>
    `(select coalesce(string_agg(row(${fields})::text, ',' order by row(${fields})::text), '') from ${from})`
  const user = (alias: string, catalog: string, column: string) =>
    `${catalog} ${alias} join pg_namespace n on n.oid = ${alias}.${column} where ${USER_NAMESPACE}`
  return `select md5(concat_ws('|',
    ${agg('n.nspname, n.nspacl, n.nspowner::regrole', `pg_namespace n where ${USER_NAMESPACE}`)},
    ${agg('extname, extversion', 'pg_extension')},
    ${roles ? `${agg('rolname, rolsuper, rolcanlogin', 'pg_roles')},` : ''}
    ${agg(
      'c.oid::regclass, c.relkind, c.relpersistence, c.relacl, c.reloptions, c.relrowsecurity',
      user('c', 'pg_class', 'relnamespace'),
    )},
    ${agg(
      `a.attrelid::regclass, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
        a.attisdropped, a.attgenerated, a.attidentity, a.attcollation, pg_get_expr(d.adbin, d.adrelid)`,
      `pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where a.attnum > 0 and ${USER_NAMESPACE}`,
    )},
    ${agg(
      'co.conrelid::regclass, co.contypid::regtype, co.conname, pg_get_constraintdef(co.oid)',
      user('co', 'pg_constraint', 'connamespace'),
    )},
    ${agg(
      'pg_get_indexdef(i.indexrelid), i.indisvalid',
      `pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace where ${USER_NAMESPACE}`,
    )},
    ${agg('pg_get_triggerdef(t.oid), t.tgenabled', 'pg_trigger t where not t.tgisinternal')},
    ${agg(
      'c.oid::regclass, pg_get_viewdef(c.oid)',
      `${user('c', 'pg_class', 'relnamespace')} and c.relkind in ('v', 'm')`,
    )},
    ${agg('polrelid::regclass, polname, pg_get_expr(polqual, polrelid)', 'pg_policy')},
    ${agg(
      `p.oid::regprocedure, p.prorettype::regtype, p.prokind, p.provolatile, p.prosecdef,
        p.proconfig, p.proacl, p.prosrc`,
      user('p', 'pg_proc', 'pronamespace'),
    )},
    ${agg(
      `t.oid::regtype, t.typtype,
        (select string_agg(enumlabel, ',' order by enumsortorder) from pg_enum where enumtypid = t.oid)`,
      user('t', 'pg_type', 'typnamespace'),
    )},
    ${agg('schemaname, sequencename, start_value, increment_by, last_value', 'pg_sequences')},
    (select count(*) from pg_event_trigger),
    (select count(*) from pg_db_role_setting),
    (select count(*) from pg_largeobject_metadata),
    (select count(*) from pg_publication),
    (select count(*) from pg_description where objoid >= 16384)
  )) as f`
}

/** The ordinary tables of the user schemas, quoted, and the columns a row can be given. */
const TABLES = `select format('%I.%I', n.nspname, c.relname) as name,
    (select coalesce(json_agg(format('%I', a.attname) order by a.attnum), '[]')
       from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
         and a.attgenerated = '') as columns
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and ${USER_NAMESPACE} order by 1`

interface Table {
  name: string
  columns: string[]
}

/** The catalog's fingerprint and every table's rows, as one text; the tables beside it. */
async function fingerprint(run: Run, roles: boolean): Promise<{ text: string; tables: Table[] }> {
  const [[catalog], tables] = await Promise.all([
    run<{ f: string }>(catalogQuery(roles)),
    run<Table>(TABLES),
  ])
  const contents = tables.length
    ? await run<{ f: string }>(
        `select concat_ws('|', ${tables
          .map(
            (t) =>
              `(select md5(coalesce(string_agg(r::text, ',' order by r::text), '')) from ${t.name} r)`,
          )
          .join(', ')}) as f`,
      )
    : [{ f: '' }]
  return { text: `${catalog!.f}|${contents[0]!.f}`, tables }
}

/** Records the state of a database its migration has just left (see the module's comment). */
export async function readPristine(run: Run, roles: boolean): Promise<Pristine | undefined> {
  const { text, tables } = await fingerprint(run, roles)
  const statements: string[] = []
  if (tables.length)
    statements.push(`truncate ${tables.map((t) => t.name).join(', ')} restart identity cascade`)
  for (const table of tables) {
    const [{ rows } = { rows: null }] = await run<{ rows: string | null }>(
      `select json_agg(r)::text as rows from ${table.name} r`,
    )
    if (rows === null) continue
    const columns = table.columns.join(', ')
    statements.push(
      `insert into ${table.name} (${columns}) overriding system value select ${columns}
         from json_populate_recordset(null::${table.name}, ${literal(rows)})`,
    )
  }
  const sequences = await run<{ name: string; value: string; called: boolean }>(
    `select format('%I.%I', schemaname, sequencename) as name,
       coalesce(last_value, start_value)::text as value, last_value is not null as called
     from pg_sequences`,
  )
  for (const s of sequences)
    statements.push(`perform setval(${literal(s.name)}, ${s.value}, ${s.called})`)
  const body = ['set local session_replication_role = replica', ...statements]
    .map((statement) => `${statement};`)
    .join('\n')
  // A row holding the quote tag could end the block early: such a state is not reused.
  if (body.includes(TAG)) return undefined
  return { fingerprint: text, restore: `do ${TAG} begin\n${body}\nend ${TAG}` }
}

/** Brings a used database back to `pristine`: true when its fingerprint shows it is. */
export async function backToPristine(
  run: Run,
  roles: boolean,
  pristine: Pristine,
): Promise<boolean> {
  try {
    await run(pristine.restore)
    return (await fingerprint(run, roles)).text === pristine.fingerprint
  } catch {
    return false
  }
}

const TAG = '$kcore_pristine$'

/** A string literal (standard_conforming_strings is on in every supported server). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}
