import type { SnapshotInfo } from '@kcore/store'

/** How long clients and caches may keep an answer about one stored snapshot. */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=86400'

/**
 * Headers of an answer derived from one stored snapshot alone: a strong `ETag` and a day of
 * `Cache-Control`. A stored snapshot only changes when its date is re-ingested, so the tag
 * hashes what identifies its content (the file's SHA-256, else its ingest time, and the engine
 * that decomposed it), the API version (the answer's shape) and the representation (route,
 * format, options). Web Crypto, so it runs on every runtime.
 */
export async function immutableHeaders(
  apiVersion: string,
  ipVersion: string,
  snapshot: SnapshotInfo,
  representation: string,
): Promise<Record<string, string>> {
  const content = snapshot.sha256 ?? snapshot.ingested_at
  const text = [
    apiVersion,
    ipVersion,
    snapshot.date,
    content,
    snapshot.engine_version,
    representation,
  ]
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text.join('\n')))
  const hex = Array.from(new Uint8Array(digest).subarray(0, 16), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('')
  return { etag: `"${hex}"`, 'cache-control': IMMUTABLE_CACHE_CONTROL }
}
