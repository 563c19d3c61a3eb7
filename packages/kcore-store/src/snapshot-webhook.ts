import type { IpVersion } from '@kcore/engine'
import { enqueueWebhook } from '@kcore/webhooks'
import type { Kysely } from 'kysely'
import type { SnapshotInfo } from './kcore-store-types.js'
import { querySnapshot } from './query-snapshots.js'
import type { KcoreSchema } from './schema.js'

/** The events the k-core API sends: a snapshot date stored for the first time, or again. */
export const KCORE_WEBHOOK_EVENTS = ['snapshot.added', 'snapshot.replaced'] as const

export type KcoreWebhookEvent = (typeof KCORE_WEBHOOK_EVENTS)[number]

/**
 * The `data` of a snapshot message: the record `GET /api/snapshots/{date}` returns, with its
 * `ip_version` (the route has it in the query; a receiver needs it to know which one changed).
 */
export type SnapshotWebhookData = { ip_version: IpVersion } & SnapshotInfo

/**
 * Writes the message of a snapshot just stored, in the ingest's transaction `trx`, so it
 * commits with the snapshot or not at all. The record is read back in `trx`: the message
 * carries exactly what the API will serve once the transaction commits.
 */
export async function enqueueSnapshotWebhook(
  trx: Kysely<KcoreSchema>,
  ipVersion: IpVersion,
  date: string,
  replaced: boolean,
): Promise<void> {
  const record = await querySnapshot(trx, ipVersion, date)
  const data: SnapshotWebhookData = { ip_version: ipVersion, ...record }
  await enqueueWebhook(trx, 'kcore', replaced ? 'snapshot.replaced' : 'snapshot.added', data)
}
