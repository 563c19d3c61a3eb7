import { type Kysely, sql } from 'kysely'
import { assertCalendarDate } from '../calendar-date.js'
import { bumpRevision } from '../revision.js'
import type { KcoreSchema } from '../schema.js'
import { asNameKey } from './as-name-key.js'
import type { AsRegistryEntry } from './registry-entries.js'

/** Where the stored registry came from: the import's source and date. */
export interface AsRegistryInfo {
  /** The files imported (their names), or what the importer said. */
  source: string
  /** The registry's date, `YYYY-MM-DD`. */
  date: string
  /** ASNs it names. */
  asn_count: number
}

/** A registry to store: its entries and where they came from. */
export interface NewAsRegistry {
  source: string
  date: string
  entries: AsRegistryEntry[]
}

/** A registry older than the stored one: an import never goes back in time. */
export class AsRegistryOutdatedError extends RangeError {
  constructor(date: string, stored: string) {
    super(`the AS registry of ${date} is older than the stored one of ${stored}`)
    this.name = 'AsRegistryOutdatedError'
  }
}

/** Entries written per statement. */
const BATCH = 5_000

/**
 * Replaces the stored registry with `registry`, whole, in one transaction: readers see the old
 * one or the new one. The registry row is locked first, so two imports at once (any process)
 * run one after the other; one older than what is stored then is refused. Bumps the data
 * revision, since answers that name ASes change with it.
 */
export async function replaceAsRegistry(
  db: Kysely<KcoreSchema>,
  registry: NewAsRegistry,
): Promise<void> {
  assertCalendarDate(registry.date, 'registry date')
  if (registry.source.trim() === '') throw new RangeError('a registry needs a source')
  if (registry.entries.length === 0) throw new RangeError('a registry needs at least one ASN')
  await db.transaction().execute(async (trx) => {
    const { rows: before } = await sql<{ date: string; fresh: boolean }>`
      insert into kcore_as_registry (source, date, asn_count)
      values (${registry.source}, ${registry.date}::date, ${registry.entries.length})
      on conflict (singleton) do update set singleton = kcore_as_registry.singleton
      returning date::text as date, (xmax::text = '0') as fresh`.execute(trx)
    const stored = before[0]!
    if (!stored.fresh && stored.date > registry.date)
      throw new AsRegistryOutdatedError(registry.date, stored.date)
    await sql`update kcore_as_registry set source = ${registry.source},
      date = ${registry.date}::date, asn_count = ${registry.entries.length},
      imported_at = now()`.execute(trx)
    await sql`delete from kcore_as_entry`.execute(trx)
    for (let i = 0; i < registry.entries.length; i += BATCH) {
      const rows = registry.entries.slice(i, i + BATCH).map((e) => ({
        asn: e.asn,
        name: e.name,
        name_key: asNameKey(e.name),
        ipv4_addresses: e.ipv4.addresses,
        ipv4_slash24s: e.ipv4.slash24s,
        ipv4_prefixes: e.ipv4.prefixes,
        ipv6_slash48s: e.ipv6.slash48s,
        ipv6_prefixes: e.ipv6.prefixes,
      }))
      await sql`insert into kcore_as_entry
        select * from json_populate_recordset(null::kcore_as_entry, cast(${JSON.stringify(rows)} as text)::json)`.execute(
        trx,
      )
    }
    await bumpRevision(trx)
  })
}

/** The stored registry's source, date and size, or null when none was imported. */
export async function queryAsRegistryInfo(db: Kysely<KcoreSchema>): Promise<AsRegistryInfo | null> {
  const { rows } = await sql<AsRegistryInfo>`select source, date::text as date, asn_count
    from kcore_as_registry`.execute(db)
  return rows[0] ?? null
}

/** What the stored registry says of `asn`, or null when it has no entry for it. */
export async function queryAsEntry(
  db: Kysely<KcoreSchema>,
  asn: number,
): Promise<AsRegistryEntry | null> {
  const row = await db
    .selectFrom('kcore_as_entry')
    .selectAll()
    .where('asn', '=', asn)
    .executeTakeFirst()
  return row ? entryOf(row) : null
}

/** The names of `asns` the stored registry has. */
export async function queryAsNames(
  db: Kysely<KcoreSchema>,
  asns: readonly number[],
): Promise<Map<number, string>> {
  const names = new Map<number, string>()
  if (asns.length === 0) return names
  const { rows } = await sql<{ asn: number; name: string }>`select asn, name from kcore_as_entry
    where asn = any(${`{${[...new Set(asns)].join(',')}}`}::bigint[])`.execute(db)
  for (const row of rows) names.set(Number(row.asn), row.name)
  return names
}

/** A stored row as an {@link AsRegistryEntry}. */
export function entryOf(row: KcoreSchema['kcore_as_entry']): AsRegistryEntry {
  return {
    asn: Number(row.asn),
    name: row.name,
    ipv4: {
      addresses: Number(row.ipv4_addresses),
      slash24s: Number(row.ipv4_slash24s),
      prefixes: row.ipv4_prefixes,
    },
    ipv6: { slash48s: Number(row.ipv6_slash48s), prefixes: row.ipv6_prefixes },
  }
}
