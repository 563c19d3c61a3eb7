import { type Kysely, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { Database, NoTables } from './database.js'
import { type Migrate, testDatabases } from './testing.js'

/** How many times each migration below ran. */
const runs = new Map<Migrate, number>()
const counted = (migrate: Migrate): Migrate => {
  const once: Migrate = async (database) => {
    runs.set(once, (runs.get(once) ?? 0) + 1)
    await migrate(database)
  }
  return once
}

/**
 * A schema with what a store's migrations make: serial, identity and generated columns, a row
 * the migration writes itself, a sequence no column owns, a trigger writing to another table,
 * a function and an index.
 */
const store = counted(async ({ db }) => {
  await sql`create table item (id serial primary key, n int not null,
    twice int generated always as (n * 2) stored)`.execute(db)
  await sql`create table meta (k text primary key, v text not null,
    seq bigint generated always as identity)`.execute(db)
  await sql`insert into meta (k, v) values ('revision', '0'), ('quote', 'it''s $x$')`.execute(db)
  await sql`create sequence stamp start 100`.execute(db)
  await sql`select nextval('stamp')`.execute(db)
  await sql`create table log (item int, stamp bigint)`.execute(db)
  await sql`create function logged() returns trigger language plpgsql as $$
    begin insert into log values (new.id, nextval('stamp')); return new; end $$`.execute(db)
  await sql`create trigger item_log after insert on item for each row execute function logged()`.execute(
    db,
  )
  await sql`create index item_n on item (n)`.execute(db)
})

/** Another schema: a database migrated for it is never handed out for `store`. */
const other = counted(async ({ db }) => {
  await sql`create table other_thing (id int)`.execute(db)
})

/** What a test sees of the database, read without the harness's fingerprint. */
async function state(db: Kysely<NoTables>) {
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows
  return {
    tables: await rows(sql`select table_name, column_name, data_type, is_nullable
      from information_schema.columns where table_schema = 'public' order by 1, 2`),
    meta: await rows(sql`select k, v, seq from meta order by k`),
    items: await rows(sql`select * from item`),
    log: await rows(sql`select * from log`),
    functions: await rows(sql`select proname, prosrc from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'`),
    triggers: await rows(sql`select tgname, tgenabled from pg_trigger where not tgisinternal`),
    indexes: await rows(sql`select indexname, indexdef from pg_indexes
      where schemaname = 'public' order by 1`),
    // What the next writes get: the sequences' positions.
    next: await rows(sql`insert into item (n) values (1) returning id, twice,
      (select stamp from log order by stamp desc limit 1) as stamp,
      (select max(seq) from meta) as meta_seq`),
  }
}

/** A database for `migrate`, its state and its name; closed after. */
async function look(open: (m?: Migrate) => Promise<Database>, migrate: Migrate) {
  const database = await open(migrate)
  try {
    const name = (await sql<{ n: string }>`select current_database() as n`.execute(database.db))
      .rows[0]!.n
    return { name, seen: await state(database.db) }
  } finally {
    await database.close()
  }
}

/** What a test could do to a migrated database, and whether the migration must run again. */
const USES: Array<[string, boolean, (db: Kysely<NoTables>) => Promise<unknown>]> = [
  [
    'writes rows, fires the trigger and moves every sequence',
    false,
    async (db) => {
      await sql`insert into item (n) select g from generate_series(1, 50) g`.execute(db)
      await sql`update meta set v = '7' where k = 'revision'`.execute(db)
      await sql`insert into meta (k, v) values ('extra', 'x')`.execute(db)
      await sql`delete from meta where k = 'quote'`.execute(db)
      await sql`select setval('stamp', 5000)`.execute(db)
    },
  ],
  [
    'leaves a transaction open',
    false,
    async (db) => {
      await sql`begin`.execute(db)
      await sql`insert into item (n) values (3)`.execute(db)
    },
  ],
  [
    'replaces a function body',
    true,
    (db) =>
      sql`create or replace function logged() returns trigger language plpgsql as $$
      begin return new; end $$`.execute(db),
  ],
  ['disables a trigger', true, (db) => sql`alter table item disable trigger item_log`.execute(db)],
  ['adds a column', true, (db) => sql`alter table item add column extra text`.execute(db)],
  [
    'adds and drops a column',
    true,
    async (db) => {
      await sql`alter table item add column extra text`.execute(db)
      await sql`alter table item drop column extra`.execute(db)
    },
  ],
  [
    'changes a default',
    true,
    (db) => sql`alter table meta alter column v set default 'd'`.execute(db),
  ],
  ['drops an index', true, (db) => sql`drop index item_n`.execute(db)],
  ['drops a table', true, (db) => sql`drop table log cascade`.execute(db)],
  ['creates a table', true, (db) => sql`create table stray (id int)`.execute(db)],
  [
    'restarts a sequence from elsewhere',
    true,
    (db) => sql`alter sequence stamp increment 5`.execute(db),
  ],
  [
    "writes the restore block's quote tag into a row",
    false,
    (db) => sql`insert into meta (k, v) values ('tag', '$kcore_pristine$')`.execute(db),
  ],
]

describe.each(testDatabases())('testDatabases on $name: a migrated database', ({ open }) => {
  it('is as its migration leaves an empty one, migrated once for every use that writes rows', async () => {
    const fresh = await look(open, store)
    const before = runs.get(store)!
    const again = await look(open, store)
    expect(again).toEqual(fresh)
    // Handed out again: the same database, not migrated again.
    expect(runs.get(store)).toBe(before)
  })

  it.each(USES)(
    'after a test that %s, the next one sees it as migrated',
    async (_, remigrates, use) => {
      const fresh = await look(open, store)
      const database = await open(store)
      await use(database.db)
      await database.close()
      const before = runs.get(store)!
      const next = await look(open, store)
      expect(next.seen).toEqual(fresh.seen)
      expect(runs.get(store)! - before).toBe(remigrates ? 1 : 0)
      // Whichever way it came back, it is kept and handed out again without migrating.
      const after = runs.get(store)!
      expect((await look(open, store)).seen).toEqual(fresh.seen)
      expect(runs.get(store)).toBe(after)
    },
  )

  it('is empty when opened without a migration, and never handed out for another one', async () => {
    await look(open, store)
    const plain = await open()
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_class c
        join pg_namespace s on s.oid = c.relnamespace where s.nspname = 'public'`.execute(plain.db)
      expect(rows[0]!.n).toBe(0)
    } finally {
      await plain.close()
    }
    const second = await open(other)
    try {
      const { rows } = await sql<{ t: string }>`select string_agg(table_name, ',') as t
        from information_schema.tables where table_schema = 'public'`.execute(second.db)
      expect(rows[0]!.t).toBe('other_thing')
    } finally {
      await second.close()
    }
  })

  it('hands two databases held at once their own state', async () => {
    const a = await open(store)
    const b = await open(store)
    try {
      await sql`insert into item (n) values (1)`.execute(a.db)
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from item`.execute(b.db)
      expect(rows[0]!.n).toBe(0)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("gives the migration's error and keeps no half-migrated database", async () => {
    const failing: Migrate = async ({ db }) => {
      await sql`create table half (id int)`.execute(db)
      throw new Error('migration broke')
    }
    await expect(open(failing)).rejects.toThrow('migration broke')
    const plain = await open()
    try {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_tables
        where schemaname = 'public'`.execute(plain.db)
      expect(rows[0]!.n).toBe(0)
    } finally {
      await plain.close()
    }
  })
})
