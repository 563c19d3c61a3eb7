import type { IpVersion } from '@kcore/engine'
import { type Kysely, sql } from 'kysely'
import { intArray } from './asn.js'
import { type KcoreSchema, knownAsnTable } from './schema.js'
import { assertAsns, assertIpVersion } from './validate.js'

/** The subset of `asns` seen in any stored snapshot of the version (primary-key look-ups). */
export async function queryKnownAsns(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asns: number[],
): Promise<Set<number>> {
  assertIpVersion(ipVersion)
  assertAsns(asns)
  if (asns.length === 0) return new Set()
  const { rows } = await sql<{ asn: number }>`select asn from ${sql.table(knownAsnTable(ipVersion))}
    where asn = any(${intArray(asns)})`.execute(db)
  return new Set(rows.map((r) => Number(r.asn)))
}
