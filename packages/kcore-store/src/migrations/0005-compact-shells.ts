import { type Kysely, type Migration, sql } from 'kysely'
import { blobParam, decodeAsns, decodeShells, encodeAsns, encodeShells } from '../shell-blobs.js'

const VERSIONS = ['ipv4', 'ipv6'] as const

/**
 * One row per snapshot instead of one per AS and snapshot: `kcore_snapshot_shells` holds the
 * snapshot's ASNs and shell indices as two blobs (`shell-blobs.ts`), written once by the ingest
 * that stores the snapshot and read whole by every query; `kcore_known_asns` holds each
 * version's distinct ASNs as one blob in place of a row per ASN. The blobs are stored
 * uncompressed out of line (`storage external`): they do not compress, and PostgreSQL then
 * reads their size without fetching them. The row tables' data is carried over, snapshot by
 * snapshot, and the row tables go.
 */
export const compactShells: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`create table kcore_snapshot_shells (
      ip_version text not null,
      date date not null,
      asns bytea not null,
      shells bytea not null,
      constraint kcore_snapshot_shells_pk primary key (ip_version, date),
      constraint kcore_snapshot_shells_snapshot_fk foreign key (ip_version, date)
        references kcore_snapshot (ip_version, date) on delete cascade
    )`.execute(db)
    await sql`create table kcore_known_asns (
      ip_version text primary key check (ip_version in ('ipv4', 'ipv6')),
      asns bytea not null
    )`.execute(db)
    for (const [table, columns] of [
      ['kcore_snapshot_shells', ['asns', 'shells']],
      ['kcore_known_asns', ['asns']],
    ] as const)
      for (const column of columns)
        await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set storage external`.execute(
          db,
        )

    for (const version of VERSIONS) {
      const rows = sql.table(`kcore_shell_${version}`)
      const { rows: dates } = await sql<{ date: string }>`
        select date::text as date from kcore_snapshot where ip_version = ${version}
        order by date`.execute(db)
      for (const { date } of dates) {
        // One text row per snapshot: a single message to parse instead of one per AS.
        const { rows: text } = await sql<{ pairs: string | null }>`
          select string_agg(asn::text || ' ' || shell_index::text, ' ') as pairs
          from ${rows} where date = ${date}::date`.execute(db)
        const numbers = text[0]?.pairs ? text[0].pairs.split(' ').map(Number) : []
        const asns = numbers.filter((_, i) => i % 2 === 0)
        const shells = numbers.filter((_, i) => i % 2 === 1)
        const blobs = encodeShells(asns, shells)
        await sql`insert into kcore_snapshot_shells (ip_version, date, asns, shells)
          values (${version}, ${date}::date, ${blobParam(blobs.asns)}, ${blobParam(blobs.shells)})`.execute(
          db,
        )
      }
      const { rows: known } = await sql<{ asns: string | null }>`
        select string_agg(asn::text, ' ' order by asn) as asns
        from ${sql.table(`kcore_asn_${version}`)}`.execute(db)
      if (known[0]?.asns) {
        const asns = Uint32Array.from(known[0].asns.split(' '), Number)
        await sql`insert into kcore_known_asns (ip_version, asns)
          values (${version}, ${blobParam(encodeAsns(asns))})`.execute(db)
      }
      await db.schema.dropTable(`kcore_asn_${version}`).execute()
      await db.schema.dropTable(`kcore_shell_${version}`).execute()
    }
  },

  async down<DB>(db: Kysely<DB>) {
    for (const version of VERSIONS) {
      const rows = sql.table(`kcore_shell_${version}`)
      await sql`create table ${rows} (
        asn bigint not null,
        date date not null,
        shell_index integer not null,
        constraint ${sql.id(`kcore_shell_${version}_pk`)} primary key (asn, date) include (shell_index)
      )`.execute(db)
      await sql`create index ${sql.id(`kcore_shell_${version}_date_asn_idx`)}
        on ${rows} (date, asn) include (shell_index)`.execute(db)
      await db.schema
        .createTable(`kcore_asn_${version}`)
        .addColumn('asn', 'bigint', (c) => c.notNull().primaryKey())
        .execute()
      const { rows: stored } = await sql<{ date: string; asns: Uint8Array; shells: Uint8Array }>`
        select date::text as date, asns, shells from kcore_snapshot_shells
        where ip_version = ${version}`.execute(db)
      for (const row of stored) {
        const { asns, shells } = decodeShells(row)
        await sql`insert into ${rows} (asn, date, shell_index)
          select a, ${row.date}::date, s
          from unnest(${`{${asns.join(',')}}`}::bigint[], ${`{${shells.join(',')}}`}::int[]) as t(a, s)`.execute(
          db,
        )
      }
      const { rows: known } = await sql<{ asns: Uint8Array }>`
        select asns from kcore_known_asns where ip_version = ${version}`.execute(db)
      if (known[0])
        await sql`insert into ${sql.table(`kcore_asn_${version}`)} (asn)
          select unnest(${`{${decodeAsns(known[0].asns).join(',')}}`}::bigint[])`.execute(db)
    }
    await db.schema.dropTable('kcore_known_asns').execute()
    await db.schema.dropTable('kcore_snapshot_shells').execute()
  },
}
