import { sql } from 'kysely'
import type { GeoFilter } from '../event.js'
import { checkNumber } from '../input-guard.js'
import { defineFilter, NO_MATCH } from './event-filter.js'

/** Mean earth radius in km used by the great-circle filter. */
export const EARTH_RADIUS_KM = 6371

/**
 * Only events whose venue has coordinates (`geoloc`), and lies within `near` if given: the
 * venues are found in the list's snapshot (the list model keeps no coordinates), the events
 * by their venue.
 */
export const geo = defineFilter<number[]>({
  name: 'geo',
  check({ near }) {
    if (!near) return
    checkNumber(near.lat, 'geoloc_lat')
    checkNumber(near.lng, 'geoloc_lng')
    checkNumber(near.radius_km, 'geoloc_radius')
  },
  async resolve({ geoloc, near }, { db }) {
    if (!geoloc && !near) return undefined
    const rows = await db
      .selectFrom('cal_venue as v')
      .select('v.id')
      .where('v.geo_lat', 'is not', null)
      .where('v.geo_lng', 'is not', null)
      .$if(near !== undefined, (q) => {
        const { lat, lng, radius_km } = near as GeoFilter
        // Haversine distance; least() guards asin against rounding just above 1.
        return q.where(
          sql<number>`${EARTH_RADIUS_KM}::float8 * 2 * asin(least(1, sqrt(
            power(sin(radians(v.geo_lat - ${lat}::float8) / 2), 2)
            + cos(radians(${lat}::float8)) * cos(radians(v.geo_lat))
            * power(sin(radians(v.geo_lng - ${lng}::float8) / 2), 2))))`,
          '<=',
          sql<number>`${radius_km}::float8`,
        )
      })
      .execute()
    return rows.length ? rows.map((r) => r.id) : NO_MATCH
  },
  scan: (venues, query) => query.venueIn(venues),
})
