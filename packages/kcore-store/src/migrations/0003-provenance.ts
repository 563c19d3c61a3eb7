import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Provenance columns on the snapshot table (`null` where unknown: snapshots stored before this
 * migration only get `serial`, read from the stored file name), and a `(date, asn) include
 * (shell_index)` index in place of the plain `date` index: every research query reads one date
 * in ASN order (keyset pages, distribution, core, movers), an index-only range scan with it.
 */
export const provenance: Migration = {
  async up<DB>(db: Kysely<DB>) {
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
  async down<DB>(db: Kysely<DB>) {
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
