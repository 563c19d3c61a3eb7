import { categories } from './categories.js'
import { dates } from './dates.js'
import type { EventFilter } from './event-filter.js'
import { featured } from './featured.js'
import { geo } from './geo.js'
import { hidden } from './hidden.js'
import { include } from './include.js'
import { modified } from './modified.js'
import { organizer } from './organizer.js'
import { postParent } from './post-parent.js'
import { search } from './search.js'
import { status } from './status.js'
import { tags } from './tags.js'
import { ticketed } from './ticketed.js'
import { venue } from './venue.js'

/**
 * Every event list filter: the SQL list and the model's scan both run exactly these. The
 * order is the order checks throw and refs resolve in (which bad field a request hears of
 * first), nothing else.
 */
export const EVENT_FILTERS: readonly EventFilter[] = [
  status,
  include,
  dates,
  hidden,
  search,
  geo,
  categories,
  tags,
  venue,
  organizer,
  featured,
  ticketed,
  postParent,
  modified,
]
