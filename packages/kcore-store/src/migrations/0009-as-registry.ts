import { type Kysely, type Migration, sql } from 'kysely'

/**
 * The AS registry (`as-registry/`): one dated import of an `@ip-location-db/asn`-shaped file
 * set (`kcore_as_registry`, at most one row: its source, date and when it was stored) and its
 * entries, one per ASN (`kcore_as_entry`): the organisation name, the key the name search
 * matches (`name_key`, lower case without accents, as `as-name-key.ts` makes it), and the
 * originated address space. An import replaces both whole in one transaction.
 */
export const asRegistry: Migration = {
  async up<DB>(db: Kysely<DB>) {
    await sql`create table kcore_as_registry (
      singleton boolean primary key default true check (singleton),
      source text not null,
      date date not null,
      imported_at timestamptz not null default now(),
      asn_count integer not null
    )`.execute(db)
    await sql`create table kcore_as_entry (
      asn bigint primary key,
      name text not null,
      name_key text not null,
      ipv4_addresses bigint not null,
      ipv4_slash24s bigint not null,
      ipv4_prefixes integer not null,
      ipv6_slash48s bigint not null,
      ipv6_prefixes integer not null
    )`.execute(db)
  },

  async down<DB>(db: Kysely<DB>) {
    await sql`drop table kcore_as_entry`.execute(db)
    await sql`drop table kcore_as_registry`.execute(db)
  },
}
