import { type Kysely, type Migration, sql } from 'kysely'

export const initial: Migration = {
  async up<DB>(db: Kysely<DB>) {
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
  async down<DB>(db: Kysely<DB>) {
    for (const version of ['ipv4', 'ipv6']) {
      await db.schema.dropTable(`kcore_asn_${version}`).execute()
      await db.schema.dropTable(`kcore_shell_${version}`).execute()
    }
    await db.schema.dropTable('kcore_snapshot').execute()
  },
}
