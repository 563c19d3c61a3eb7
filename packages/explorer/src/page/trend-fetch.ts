import { ApiError, getJson } from './api-client.js'
import type { TrendResponse } from './api-types.js'
import type { IpVersion, ViewState } from './view-state.js'

/** One `GET /api/trends/{asn}` of one version: the trend, or the API's error. */
export type TrendAnswer = { asn: string; version: IpVersion } & (
  | { trend: TrendResponse }
  | { error: ApiError }
)

export async function fetchTrend(
  asn: string,
  version: IpVersion,
  view: ViewState,
): Promise<TrendAnswer> {
  const query = new URLSearchParams({ ip_version: version })
  if (view.start) query.set('start_date', view.start)
  if (view.end) query.set('end_date', view.end)
  try {
    return { asn, version, trend: await getJson<TrendResponse>(`/api/trends/${asn}?${query}`) }
  } catch (error) {
    return {
      asn,
      version,
      error: error instanceof ApiError ? error : new ApiError(0, 'error', String(error)),
    }
  }
}
