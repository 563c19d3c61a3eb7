import { MAX_NAME_LENGTH } from '@cal/store'
import { z } from 'zod'
import {
  authorId,
  bodyId,
  dateText,
  flag,
  imageUrl,
  optionalText,
  slugText,
  timezoneName,
  website,
  writableStatus,
} from './body-fields.js'
import { organizerCreateBody } from './organizer-body.js'
import { MAX_ID, seriesScope } from './request-schemas.js'
import { venueCreateBody } from './venue-body.js'

const organizerRef = z.union([bodyId, organizerCreateBody])
// A name as long as a term write may store (the store's limit), checked here before auth too.
const termRef = z.union([
  z.number().int().min(1).max(MAX_ID),
  z.string().trim().min(1).max(MAX_NAME_LENGTH),
])
const termRefs = z
  .union([z.array(termRef), termRef])
  .transform((v) => ([] as (number | string)[]).concat(v))
  .nullable()
  .optional()

/**
 * A series' recurrence: the shape here (for the document and early size limits); what the
 * rules say is checked by the store's recurrence core, whose refusals name `recurrence` too.
 */
const recurrence = z
  .looseObject({
    rules: z
      .array(z.string().max(1000))
      .min(1)
      .max(10)
      .describe('RFC 5545 RRULE values without the RRULE: prefix (1 to 10)'),
    rdates: z
      .array(z.string().max(40))
      .max(1000)
      .optional()
      .describe("Extra occurrences, 'YYYY-MM-DD HH:MM:SS' in the event's zone"),
    exdates: z
      .array(z.string().max(40))
      .max(1000)
      .optional()
      .describe(
        "Removed occurrences (their original start), 'YYYY-MM-DD HH:MM:SS' in the event's zone",
      ),
  })
  .nullable()
  .optional()
  .describe('Makes the event a recurring series; null makes a series a single event')

const eventFields = {
  recurrence,
  description: optionalText,
  excerpt: optionalText,
  slug: slugText,
  status: writableStatus,
  author: authorId,
  all_day: flag,
  timezone: timezoneName.nullable().optional(),
  cost: z
    .union([
      z.string().max(1000),
      z.number().nonnegative(),
      z.array(z.union([z.string().max(1000), z.number()])),
    ])
    .transform((v) => ([] as (string | number)[]).concat(v).map(String))
    .nullable()
    .optional(),
  website,
  show_map: flag,
  show_map_link: flag,
  hide_from_listings: flag,
  sticky: flag,
  featured: flag,
  ticketed: flag,
  post_parent: bodyId.nullable().optional(),
  password: z.string().max(255).nullable().optional(),
  image: imageUrl,
  venue: z.union([bodyId, venueCreateBody]).nullable().optional(),
  organizer: z
    .union([organizerRef, z.array(organizerRef)])
    .transform((v) => ([] as z.output<typeof organizerRef>[]).concat(v))
    .nullable()
    .optional(),
  categories: termRefs,
  tags: termRefs,
}

/** Body of `POST /events`: `title`, `start_date` and `end_date` are required. */
export const eventCreateBody = z.object({
  title: z.string().trim().min(1, 'is required'),
  start_date: dateText,
  end_date: dateText,
  ...eventFields,
})

/** Body of an event update (POST/PUT/PATCH): every field optional, `null` clears. */
export const eventUpdateBody = z.object({
  title: z.string().trim().min(1, 'must not be empty').optional(),
  scope: seriesScope.optional(),
  start_date: dateText.optional(),
  end_date: dateText.optional(),
  ...eventFields,
})

/** A parsed event body (create or update). */
export type EventBody = z.output<typeof eventUpdateBody>
