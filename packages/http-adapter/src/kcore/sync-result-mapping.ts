import type { IpVersion } from '@kcore/engine'
import type { SyncResults, VersionSyncResult } from '@kcore/store'

/** One version of a `POST /api/refresh` answer. */
export interface RefreshVersionResult {
  processed: boolean
  snapshots_added: number
  latest_date: string | null
  success: boolean
  processed_dates: string[]
  error?: string
}

/** One version of a `POST /api/scheduler/update` answer. */
export interface UpdateVersionResult {
  checked: boolean
  updated: boolean
  new_snapshots: number
  error: string | null
  success: boolean
}

/** A store sync result as the refresh endpoint reports it. */
export function toRefreshResult(result: VersionSyncResult): RefreshVersionResult {
  const processed = result.checked && result.error === null
  return {
    processed,
    snapshots_added: result.added.length,
    latest_date: result.latestDate,
    success: processed,
    processed_dates: [...result.added],
    ...(processed ? {} : { error: result.error ?? 'not processed' }),
  }
}

/** A store sync result as the scheduler's update endpoint reports it. */
export function toUpdateResult(result: VersionSyncResult): UpdateVersionResult {
  return {
    checked: result.checked,
    updated: result.added.length > 0,
    new_snapshots: result.added.length,
    error: result.error,
    success: result.checked && result.error === null,
  }
}

/** Maps every version of a sync with `map`, in the order asked. */
export function mapResults<T>(
  results: SyncResults,
  versions: IpVersion[],
  map: (result: VersionSyncResult) => T,
): Partial<Record<IpVersion, T>> {
  const out: Partial<Record<IpVersion, T>> = {}
  for (const version of versions) {
    const result = results[version]
    if (result) out[version] = map(result)
  }
  return out
}
