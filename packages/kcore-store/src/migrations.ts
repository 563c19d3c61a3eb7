import { dropNotifyOnChange, notifyOnChange } from '@kcore/db'
import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely'
import { REVISION_CHANNEL } from './revision.js'

/** Kysely's bookkeeping tables for this package (apart from every other package's). */
export const MIGRATION_TABLE = 'kcore_migration'
export const MIGRATION_LOCK_TABLE = 'kcore_migration_lock'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
type AnyDb = Kysely<any>

const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('kcore_snapshot')
      .addColumn('ip_version', 'text', (c) =>
        c.notNull().check(sql`ip_version in ('ipv4', 'ipv6')`),
      )
      .addColumn('date', 'date', (c) => c.notNull())
      .addColumn('max_shell_index', 'integer', (c) => c.notNull())
      .addColumn('unique_asns', 'integer', (c) => c.notNull())
      .addColumn('link_count', 'integer', (c) => c.notNull())
      .addColumn('source', 'text')
      .addColumn('metadata', 'jsonb')
      .addColumn('ingested_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('kcore_snapshot_pk', ['ip_version', 'date'])
      .execute()

    for (const version of ['ipv4', 'ipv6']) {
      // Primary key (asn, date) INCLUDE (shell_index): a trend is one index range scan per ASN,
      // already in date order, answered from the index alone (index-only scan) instead of one
      // heap page per snapshot. The included int4 fits in the tuple's alignment padding.
      await sql`create table ${sql.table(`kcore_shell_${version}`)} (
        asn bigint not null,
        date date not null,
        shell_index integer not null,
        constraint ${sql.id(`kcore_shell_${version}_pk`)} primary key (asn, date) include (shell_index)
      )`.execute(db)
      // Replacing or dropping one snapshot deletes by date; btree deduplication keeps it small.
      await db.schema
        .createIndex(`kcore_shell_${version}_date_idx`)
        .on(`kcore_shell_${version}`)
        .column('date')
        .execute()
      // Distinct ASNs of the version: `total_asns` and "is this ASN known" without a big scan.
      await db.schema
        .createTable(`kcore_asn_${version}`)
        .addColumn('asn', 'bigint', (c) => c.notNull().primaryKey())
        .execute()
    }
  },
  async down(db: AnyDb) {
    for (const version of ['ipv4', 'ipv6']) {
      await db.schema.dropTable(`kcore_asn_${version}`).execute()
      await db.schema.dropTable(`kcore_shell_${version}`).execute()
    }
    await db.schema.dropTable('kcore_snapshot').execute()
  },
}

/**
 * The data revision: one row whose counter every ingest bumps inside its own transaction, so a
 * reader in any process sees the new number exactly when it sees the new rows (a sequence would
 * move before the commit). Readers key caches and ETags on it.
 */
const revision: Migration = {
  async up(db: AnyDb) {
    await sql`create table kcore_revision (
      singleton boolean primary key default true check (singleton),
      revision bigint not null
    )`.execute(db)
    await sql`insert into kcore_revision (revision) values (1)`.execute(db)
  },
  async down(db: AnyDb) {
    await db.schema.dropTable('kcore_revision').execute()
  },
}

/**
 * Provenance columns on the snapshot table (`null` where unknown: snapshots stored before this
 * migration only get `serial`, read from the stored file name), and a `(date, asn) include
 * (shell_index)` index in place of the plain `date` index: every research query reads one date
 * in ASN order (keyset pages, distribution, core, movers), an index-only range scan with it.
 */
const provenance: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('kcore_snapshot')
      .addColumn('source_url', 'text')
      .addColumn('serial', 'smallint', (c) => c.check(sql`serial in (1, 2)`))
      .addColumn('sha256', 'text', (c) => c.check(sql`sha256 ~ '^[0-9a-f]{64}$'`))
      .addColumn('file_modified', 'timestamptz')
      .addColumn('engine_version', 'text')
      .execute()
    await sql`update kcore_snapshot set serial = case
        when source like '%.as-rel2.%' then 2
        when source like '%.as-rel.%' then 1 end`.execute(db)
    for (const version of ['ipv4', 'ipv6']) {
      await sql`create index ${sql.id(`kcore_shell_${version}_date_asn_idx`)}
        on ${sql.table(`kcore_shell_${version}`)} (date, asn) include (shell_index)`.execute(db)
      await db.schema.dropIndex(`kcore_shell_${version}_date_idx`).execute()
    }
  },
  async down(db: AnyDb) {
    for (const version of ['ipv4', 'ipv6']) {
      await db.schema
        .createIndex(`kcore_shell_${version}_date_idx`)
        .on(`kcore_shell_${version}`)
        .column('date')
        .execute()
      await db.schema.dropIndex(`kcore_shell_${version}_date_asn_idx`).execute()
    }
    for (const column of ['engine_version', 'file_modified', 'sha256', 'serial', 'source_url'])
      await db.schema.alterTable('kcore_snapshot').dropColumn(column).execute()
  },
}

/**
 * Every change of the revision notifies {@link REVISION_CHANNEL} at commit, so a process that
 * sees every commit (PGlite) can keep the revision in memory until it moves (`revisionReads`).
 */
const revisionNotify: Migration = {
  async up(db: AnyDb) {
    await notifyOnChange(db, 'kcore_revision', REVISION_CHANNEL)
  },
  async down(db: AnyDb) {
    await dropNotifyOnChange(db, 'kcore_revision')
  },
}

/** The migrations of `@kcore/store`, in order. Names never change once released. */
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_revision': revision,
  '0003_provenance': provenance,
  '0004_revision_notify': revisionNotify,
}

/** A static, in-code migration provider (no file system look-ups, works in every runtime). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}
