import type { IpVersion } from '@kcore/engine'
import type { Kysely } from 'kysely'
import type { KcoreSchema } from './schema.js'
import { decodeAsns, indexOfAsn } from './shell-blobs.js'
import { assertAsns, assertIpVersion } from './validate.js'

/** The subset of `asns` seen in any stored snapshot of the version (the known-ASN blob). */
export async function queryKnownAsns(
  db: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  asns: number[],
): Promise<Set<number>> {
  assertIpVersion(ipVersion)
  assertAsns(asns)
  if (asns.length === 0) return new Set()
  const row = await db
    .selectFrom('kcore_known_asns')
    .select('asns')
    .where('ip_version', '=', ipVersion)
    .executeTakeFirst()
  if (!row) return new Set()
  const known = decodeAsns(row.asns)
  return new Set(asns.filter((asn) => indexOfAsn(known, asn) >= 0))
}
