import { GRAPH_LINKS_VERSION, type IpVersion } from '@kcore/engine'
import type { Transaction } from 'kysely'
import type { KcoreSchema } from './schema.js'
import { blobParam } from './shell-blobs.js'

/** `kcgl`, the first bytes of every `encodeGraphLinks` output (`graph-links-format.ts`). */
const MAGIC = [0x6b, 0x63, 0x67, 0x6c] as const

/**
 * Refuses bytes that do not start as `encodeGraphLinks` output of the version this engine
 * writes: a cheap header check before storing (decoding them whole is the readers' work).
 *
 * @throws {RangeError}
 */
export function assertGraphLinks(links: Uint8Array): void {
  const header = MAGIC.every((byte, i) => links[i] === byte)
  if (!header || links[MAGIC.length] !== GRAPH_LINKS_VERSION)
    throw new RangeError(
      `links are not encodeGraphLinks output of version ${GRAPH_LINKS_VERSION} (bad header)`,
    )
}

/**
 * Writes (or, without `links`, deletes) the stored links of a snapshot, inside the transaction
 * that writes its shells: the links are replaced with their snapshot, never left from an
 * earlier content of the date.
 */
export async function writeSnapshotLinks(
  trx: Transaction<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  links: Uint8Array | undefined,
): Promise<void> {
  if (!links) {
    await trx
      .deleteFrom('kcore_snapshot_links')
      .where('ip_version', '=', ipVersion)
      .where('snapshot_date', '=', date)
      .execute()
    return
  }
  await trx
    .insertInto('kcore_snapshot_links')
    .values({
      ip_version: ipVersion,
      snapshot_date: date,
      format_version: GRAPH_LINKS_VERSION,
      links: blobParam(links),
    })
    .onConflict((oc) =>
      oc.columns(['ip_version', 'snapshot_date']).doUpdateSet({
        format_version: (eb) => eb.ref('excluded.format_version'),
        links: (eb) => eb.ref('excluded.links'),
      }),
    )
    .execute()
}
