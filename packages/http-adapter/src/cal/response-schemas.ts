import { POST_STATUSES } from '@cal/store'
import { z } from 'zod'

/** `YYYY-MM-DD HH:MM:SS`. */
const dateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
const details = z.strictObject({
  year: z.string(),
  month: z.string(),
  day: z.string(),
  hour: z.string(),
  minutes: z.string(),
  seconds: z.string(),
})
const image = z.union([z.literal(false), z.strictObject({ url: z.string() })])
const status = z.enum(POST_STATUSES)
const stamps = {
  date: dateTime,
  date_utc: dateTime,
  modified: dateTime,
  modified_utc: dateTime,
}

/** A category or tag as returned. */
export const termRecord = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  taxonomy: z.enum(['cal_event_category', 'cal_event_tag']),
  description: z.string(),
  parent: z.number().int(),
  count: z.number().int(),
  urls: z.strictObject({ self: z.url(), collection: z.url(), up: z.url().optional() }),
})

/** A venue as returned (empty fields are `""`). */
export const venueRecord = z.strictObject({
  id: z.number().int(),
  author: z.number().int(),
  status,
  ...stamps,
  url: z.url(),
  rest_url: z.url(),
  venue: z.string(),
  slug: z.string(),
  description: z.string(),
  image,
  show_map: z.boolean(),
  show_map_link: z.boolean(),
  address: z.string(),
  city: z.string(),
  country: z.string(),
  province: z.string(),
  state: z.string(),
  zip: z.string(),
  phone: z.string(),
  stateprovince: z.string(),
  website: z.string(),
  geo_lat: z.union([z.number(), z.literal('')]),
  geo_lng: z.union([z.number(), z.literal('')]),
})

/** An organizer as returned (empty fields are `""`). */
export const organizerRecord = z.strictObject({
  id: z.number().int(),
  author: z.number().int(),
  status,
  ...stamps,
  url: z.url(),
  rest_url: z.url(),
  organizer: z.string(),
  slug: z.string(),
  description: z.string(),
  image,
  phone: z.string(),
  website: z.string(),
  email: z.string(),
})

/** An event as returned. */
export const eventRecord = z.strictObject({
  id: z.number().int(),
  global_id: z.string(),
  author: z.number().int(),
  status,
  ...stamps,
  url: z.url(),
  rest_url: z.url(),
  title: z.string(),
  description: z.string(),
  excerpt: z.string(),
  slug: z.string(),
  image,
  all_day: z.boolean(),
  start_date: dateTime,
  start_date_details: details,
  end_date: dateTime,
  end_date_details: details,
  utc_start_date: dateTime,
  utc_start_date_details: details,
  utc_end_date: dateTime,
  utc_end_date_details: details,
  timezone: z.string(),
  timezone_abbr: z.string(),
  cost: z.string(),
  cost_details: z.strictObject({
    currency_symbol: z.string(),
    currency_code: z.string(),
    currency_position: z.enum(['prefix', 'postfix']),
    values: z.array(z.string()),
  }),
  website: z.string(),
  show_map: z.boolean(),
  show_map_link: z.boolean(),
  hide_from_listings: z.boolean(),
  sticky: z.boolean(),
  featured: z.boolean(),
  ticketed: z.boolean(),
  password_protected: z.boolean(),
  categories: z.array(termRecord),
  tags: z.array(termRecord),
  venue: z.union([venueRecord, z.array(z.never()).length(0)]),
  organizer: z.array(organizerRecord),
  post_parent: z.number().int().describe('The series of an occurrence (0: none)'),
  is_recurring: z.boolean().describe('True for every occurrence of a recurring series'),
  recurrence: z
    .strictObject({
      rules: z.array(z.string()),
      rdates: z.array(z.string()).optional(),
      exdates: z.array(z.string()).optional(),
    })
    .nullable()
    .describe("The series' rules (null for a single event)"),
  occurrence_start_utc: dateTime
    .nullable()
    .describe("An occurrence's original start in UTC (its RECURRENCE-ID); null for a single event"),
  dropped_overrides: z
    .array(z.number().int())
    .optional()
    .describe('On an update that changed the rule: ids of edited occurrences it removed'),
})

/** A list envelope with its records under `key`. */
export const listEnvelope = <T extends z.ZodType>(key: string, record: T) =>
  z.strictObject({
    [key]: z.array(record),
    rest_url: z.url(),
    next_rest_url: z.url().optional(),
    previous_rest_url: z.url().optional(),
    total: z.number().int(),
    total_pages: z.number().int(),
  })

/** The WordPress-style error envelope. */
export const errorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  data: z
    .object({ status: z.number().int(), params: z.record(z.string(), z.string()).optional() })
    .loose(),
  error: z.string(),
  status: z.number().int(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
})

/** Error responses every calendar route may give, for the OpenAPI document. */
export const errorResponses = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [s, { description: ERROR_TEXT[s] ?? 'Error', schema: errorEnvelope }]),
  ) as Record<number, { description: string; schema: z.ZodType }>

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid parameter (`rest_invalid_param` with `data.params`)',
  401: 'No token (`rest_not_logged_in`) or an unknown one (`rest_invalid_token`)',
  403: 'Not accessible, password protected or no longer available',
  404: 'No such record or page',
  410: 'Already in the trash, or (`/changes`) a sync token expired or not made here',
}
