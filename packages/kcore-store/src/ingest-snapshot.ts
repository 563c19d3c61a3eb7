import { type Kysely, sql, type Transaction } from 'kysely'
import { intArray, isAsn } from './asn.js'
import { assertCalendarDate } from './calendar-date.js'
import type { NewSnapshot } from './kcore-store-types.js'
import { provenanceColumns } from './provenance.js'
import { MAX_INT4 } from './query-options.js'
import { bumpRevision } from './revision.js'
import type { KcoreSchema } from './schema.js'
import {
  base64,
  blobParam,
  decodeAsns,
  encodeAsns,
  encodeShells,
  exceptAsns,
  fenceOf,
  fromBase64,
  unionAsns,
} from './shell-blobs.js'
import { assertGraphLinks, writeSnapshotLinks } from './snapshot-links.js'
import { enqueueSnapshotWebhook } from './snapshot-webhook.js'
import { assertIpVersion } from './validate.js'

/**
 * Stores one snapshot in one transaction, replacing a stored one of the same version and date.
 *
 * The shell indices go in as ONE row of two blobs (`shell-blobs.ts`) and the ASNs' fence: three
 * parameters whatever the size and no index entry per AS, the same SQL on PostgreSQL and PGlite. The version's
 * known-ASN blob is merged in the same transaction, and the graph's links (`snapshot.links`)
 * are written or, when not given, a replaced snapshot's are deleted (`snapshot-links.ts`).
 */
export async function ingestSnapshot(
  db: Kysely<KcoreSchema>,
  snapshot: NewSnapshot,
): Promise<void> {
  const { ipVersion, date, decomposition, linkCount } = snapshot
  assertIpVersion(ipVersion)
  assertCalendarDate(date, 'snapshot date')
  const { asns, shells } = decomposition
  if (asns.length !== shells.length)
    throw new RangeError(`decomposition has ${asns.length} ASNs but ${shells.length} shell indices`)
  if (!Number.isInteger(linkCount) || linkCount < 0)
    throw new RangeError(`linkCount must be a non-negative integer, got ${linkCount}`)
  let maxShell = 0
  for (let i = 0; i < asns.length; i++) {
    const asn = asns[i]!
    const shell = shells[i]!
    if (!isAsn(asn)) throw new RangeError(`invalid ASN ${asn} at index ${i}`)
    if (!Number.isInteger(shell) || shell < 0 || shell > MAX_INT4)
      throw new RangeError(`invalid shell index ${shell} for ASN ${asn}`)
    if (shell > maxShell) maxShell = shell
  }
  if (decomposition.maxShell !== maxShell)
    throw new RangeError(
      `decomposition.maxShell is ${decomposition.maxShell} but its largest shell index is ${maxShell}`,
    )

  if (snapshot.links) assertGraphLinks(snapshot.links)
  const blobs = encodeShells(asns, shells)
  // In ASN order a repeated ASN sits next to itself.
  const sorted = decodeAsns(blobs.asns)
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i] === sorted[i - 1])
      throw new RangeError(`ASN ${sorted[i]} appears twice in the decomposition`)
  const row = {
    ip_version: ipVersion,
    date,
    max_shell_index: maxShell,
    unique_asns: asns.length,
    link_count: linkCount,
    source: snapshot.source ?? null,
    metadata: snapshot.metadata ? JSON.stringify(snapshot.metadata) : null,
    ...provenanceColumns(snapshot),
  }

  await db.transaction().execute(async (trx) => {
    // The upsert comes first: it locks the (version, date) row, so two processes storing the
    // same date at once run one after the other instead of mixing their rows.
    const upserted = await trx
      .insertInto('kcore_snapshot')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['ip_version', 'date']).doUpdateSet({
          max_shell_index: (eb) => eb.ref('excluded.max_shell_index'),
          unique_asns: (eb) => eb.ref('excluded.unique_asns'),
          link_count: (eb) => eb.ref('excluded.link_count'),
          source: (eb) => eb.ref('excluded.source'),
          metadata: (eb) => eb.ref('excluded.metadata'),
          source_url: (eb) => eb.ref('excluded.source_url'),
          serial: (eb) => eb.ref('excluded.serial'),
          sha256: (eb) => eb.ref('excluded.sha256'),
          file_modified: (eb) => eb.ref('excluded.file_modified'),
          engine_version: (eb) => eb.ref('excluded.engine_version'),
          ingested_at: sql`now()`,
        }),
      )
      // A row the insert made has no deleting transaction yet (xmax 0); one the conflict
      // updated has this one's: which tells `snapshot.added` from `snapshot.replaced`.
      .returning(sql<boolean>`xmax::text <> '0'`.as('replaced'))
      .executeTakeFirstOrThrow()
    const old = upserted.replaced
      ? await trx
          .selectFrom('kcore_snapshot_shells')
          .select(base64('asns').as('asns'))
          .where('ip_version', '=', ipVersion)
          .where('date', '=', date)
          .executeTakeFirst()
      : undefined
    await trx
      .insertInto('kcore_snapshot_shells')
      .values({
        ip_version: ipVersion,
        date,
        asns: blobParam(blobs.asns),
        shells: blobParam(blobs.shells),
        fence: intArray(fenceOf(sorted)),
      })
      .onConflict((oc) =>
        oc.columns(['ip_version', 'date']).doUpdateSet({
          asns: (eb) => eb.ref('excluded.asns'),
          shells: (eb) => eb.ref('excluded.shells'),
          fence: (eb) => eb.ref('excluded.fence'),
        }),
      )
      .execute()
    await writeSnapshotLinks(trx, ipVersion, date, snapshot.links)
    const replaced = old ? decodeAsns(fromBase64(old.asns)) : undefined
    await updateKnownAsns(trx, ipVersion, date, sorted, replaced)
    // In this transaction: the message commits with the snapshot, or neither does.
    await enqueueSnapshotWebhook(trx, ipVersion, date, upserted.replaced)
    // Last, so the row lock it takes is held only for the commit.
    await bumpRevision(trx)
  })
}

/**
 * Merges a stored snapshot's ASNs (`added`, ascending) into the version's known-ASN blob. When
 * it replaced a stored one whose ASNs were `replaced`, the ASNs only that one had are forgotten
 * unless another stored snapshot has them: usually a few hundred candidates, checked against the
 * other snapshots' blobs (a rare path: CAIDA re-issues a date now and then). The blob's row is
 * locked first, so concurrent ingests of one version merge one after the other.
 */
async function updateKnownAsns(
  trx: Transaction<KcoreSchema>,
  ipVersion: NewSnapshot['ipVersion'],
  date: string,
  added: Uint32Array,
  replaced: Uint32Array | undefined,
): Promise<void> {
  // One statement makes the row if missing, locks it and reads it (a no-op update keeps the
  // stored blob as it is, without copying it).
  const { asns: knownBytes } = await trx
    .insertInto('kcore_known_asns')
    .values({ ip_version: ipVersion, asns: new Uint8Array(0) })
    .onConflict((oc) =>
      oc.column('ip_version').doUpdateSet({ asns: (eb) => eb.ref('kcore_known_asns.asns') }),
    )
    .returning(base64('asns').as('asns'))
    .executeTakeFirstOrThrow()
  const before = decodeAsns(fromBase64(knownBytes))
  let known = unionAsns(before, added)
  const gone = replaced ? exceptAsns(replaced, added) : new Uint32Array(0)
  if (gone.length > 0) {
    let elsewhere: Uint32Array = new Uint32Array(0)
    const others = await trx
      .selectFrom('kcore_snapshot_shells')
      .select(base64('asns').as('asns'))
      .where('ip_version', '=', ipVersion)
      .where('date', '<>', date)
      .execute()
    for (const other of others) elsewhere = unionAsns(elsewhere, decodeAsns(fromBase64(other.asns)))
    known = exceptAsns(known, exceptAsns(gone, elsewhere))
  }
  if (known.length === before.length && gone.length === 0) return
  await trx
    .updateTable('kcore_known_asns')
    .set({ asns: blobParam(encodeAsns(known)) })
    .where('ip_version', '=', ipVersion)
    .execute()
}
