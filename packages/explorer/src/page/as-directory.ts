import { ApiError } from './api-client.js'
import type { AsnOverview } from './api-types.js'
import { asLabel } from './as-label.js'

/** The page's knowledge of each AS: its `GET /api/asns/{asn}` answer, fetched once, and name. */
export interface AsDirectory {
  /** The overview, `null` when the API knows no such AS; fetched once per ASN. */
  overview(asn: string): Promise<AsnOverview | null>
  /** `AS13335 Cloudflare, Inc.` from what is known now (`AS13335` before the name is known). */
  label(asn: string): string
  /** A name learnt elsewhere (a picked suggestion), so the label needs no request. */
  remember(asn: string, name: string | null): void
}

/**
 * A directory over `load` (the API). An answer is kept for the page's life, an unknown AS (404)
 * too; any other failure (network, 5xx) is forgotten so the next render asks again.
 */
export function createAsDirectory(load: (asn: string) => Promise<AsnOverview>): AsDirectory {
  const overviews = new Map<string, Promise<AsnOverview | null>>()
  const names = new Map<string, string | null>()
  return {
    overview(asn) {
      let answer = overviews.get(asn)
      if (answer === undefined) {
        answer = load(asn).then(
          (overview) => {
            names.set(asn, overview.name ?? null)
            return overview
          },
          (error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return null
            overviews.delete(asn)
            throw error
          },
        )
        overviews.set(asn, answer)
      }
      return answer
    },
    label: (asn) => asLabel(asn, names.get(asn)),
    remember(asn, name) {
      if (!names.get(asn)) names.set(asn, name)
    },
  }
}
