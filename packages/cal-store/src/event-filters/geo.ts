import { sql } from 'kysely'
import type { GeoFilter } from '../event.js'
import { checkNumber } from '../input-guard.js'
import { defineFilter, SQL_ONLY } from './event-filter.js'

/** Mean earth radius in km used by the great-circle filter. */
export const EARTH_RADIUS_KM = 6371

/** Only events whose venue has coordinates (`geoloc`), and lies within `near` if given. */
export const geo = defineFilter<{ near?: GeoFilter }>({
  name: 'geo',
  check({ near }) {
    if (!near) return
    checkNumber(near.lat, 'geoloc_lat')
    checkNumber(near.lng, 'geoloc_lng')
    checkNumber(near.radius_km, 'geoloc_radius')
  },
  resolve: (filter) => (filter.geoloc || filter.near ? { near: filter.near } : undefined),
  where: ({ near }, { eb }) =>
    eb.exists(
      eb
        .selectFrom('cal_venue as v')
        .select('v.id')
        .whereRef('v.id', '=', 'e.venue_id')
        .where('v.geo_lat', 'is not', null)
        .where('v.geo_lng', 'is not', null)
        .$if(near !== undefined, (sub) => {
          const { lat, lng, radius_km } = near as GeoFilter
          // Haversine distance; least() guards asin against rounding just above 1.
          return sub.where(
            sql<number>`${EARTH_RADIUS_KM}::float8 * 2 * asin(least(1, sqrt(
              power(sin(radians(v.geo_lat - ${lat}::float8) / 2), 2)
              + cos(radians(${lat}::float8)) * cos(radians(v.geo_lat))
              * power(sin(radians(v.geo_lng - ${lng}::float8) / 2), 2))))`,
            '<=',
            sql<number>`${radius_km}::float8`,
          )
        }),
    ),
  // The model keeps no venue coordinates.
  memory: SQL_ONLY,
})
