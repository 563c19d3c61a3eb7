import { type Kysely, sql } from 'kysely'
import { intArray, isAsn } from './asn.js'
import { assertCalendarDate } from './calendar-date.js'
import type { NewSnapshot } from './kcore-store-types.js'
import { provenanceColumns } from './provenance.js'
import { bumpRevision } from './revision.js'
import { type KcoreSchema, knownAsnTable, shellTable } from './schema.js'
import { enqueueSnapshotWebhook } from './snapshot-webhook.js'
import { vacuumShellTable } from './vacuum-shell-table.js'
import { assertIpVersion } from './validate.js'

/**
 * Stores one snapshot in one transaction, replacing a stored one of the same version and date.
 *
 * The shell rows go in as ONE `insert ... select from unnest($1::bigint[], $2::int[])`: two
 * parameters whatever the size, the same SQL on PostgreSQL and PGlite, and the fastest of the
 * methods measured in `bench/ingest.ts`.
 */
export async function ingestSnapshot(
  db: Kysely<KcoreSchema>,
  snapshot: NewSnapshot,
  options: { vacuum?: boolean } = {},
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
  const seen = new Set<number>()
  for (let i = 0; i < asns.length; i++) {
    const asn = asns[i]!
    const shell = shells[i]!
    if (!isAsn(asn)) throw new RangeError(`invalid ASN ${asn} at index ${i}`)
    if (!Number.isInteger(shell) || shell < 0)
      throw new RangeError(`invalid shell index ${shell} for ASN ${asn}`)
    if (seen.has(asn)) throw new RangeError(`ASN ${asn} appears twice in the decomposition`)
    seen.add(asn)
    if (shell > maxShell) maxShell = shell
  }
  if (decomposition.maxShell !== maxShell)
    throw new RangeError(
      `decomposition.maxShell is ${decomposition.maxShell} but its largest shell index is ${maxShell}`,
    )

  const shell = shellTable(ipVersion)
  const known = knownAsnTable(ipVersion)
  const asnParam = intArray(asns)
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
    // Replacing a date: ASNs that only the old version of this date had are forgotten. The
    // candidates are (old rows of this date) EXCEPT (new ASNs), usually a few hundred, each
    // checked against the other dates through the primary key. A no-op for a new date.
    await sql`delete from ${sql.table(known)} k
      where k.asn in (select asn from ${sql.table(shell)} where date = ${date}::date
                      except select unnest(${asnParam}))
        and not exists (select 1 from ${sql.table(shell)} s
                        where s.asn = k.asn and s.date <> ${date}::date)`.execute(trx)
    await trx.deleteFrom(shell).where('date', '=', date).execute()
    await sql`insert into ${sql.table(shell)} (asn, date, shell_index)
      select a, ${date}::date, s from unnest(${asnParam}, ${intArray(shells, 'int')}) as t(a, s)`.execute(
      trx,
    )
    await sql`insert into ${sql.table(known)} (asn)
      select unnest(${asnParam}) on conflict do nothing`.execute(trx)
    // In this transaction: the message commits with the snapshot, or neither does.
    await enqueueSnapshotWebhook(trx, ipVersion, date, upserted.replaced)
    // Last, so the row lock it takes is held only for the commit.
    await bumpRevision(trx)
  })
  if (options.vacuum !== false) await vacuumShellTable(db, ipVersion)
}
