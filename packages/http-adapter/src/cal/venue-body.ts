import type { VenueInput, VenuePatch } from '@cal/store'
import { z } from 'zod'
import {
  authorId,
  flag,
  imageUrl,
  optionalText,
  slugText,
  website,
  writableStatus,
} from './body-fields.js'

const venueFields = {
  slug: slugText,
  status: writableStatus,
  author: authorId,
  description: optionalText,
  image: imageUrl,
  show_map: flag,
  show_map_link: flag,
  address: optionalText,
  city: optionalText,
  country: optionalText,
  province: optionalText,
  state: optionalText,
  stateprovince: optionalText,
  zip: optionalText,
  phone: optionalText,
  website,
  geo_lat: z.number().min(-90).max(90).nullable().optional(),
  geo_lng: z.number().min(-180).max(180).nullable().optional(),
}

/** Body of `POST /venues` (and an inline venue object on an event write). */
export const venueCreateBody = z.object({
  venue: z.string().trim().min(1, 'is required'),
  ...venueFields,
})

/** Body of a venue update: every field optional. */
export const venueUpdateBody = z.object({
  venue: z.string().trim().min(1, 'must not be empty').optional(),
  ...venueFields,
})

type VenueBody = z.output<typeof venueUpdateBody>

/** The store's patch from a venue body (`stateprovince` fills `state` when that is absent). */
export function toVenuePatch(body: VenueBody): VenuePatch {
  const { venue, stateprovince, ...rest } = body
  const patch: VenuePatch = { ...rest }
  if (venue !== undefined) patch.name = venue
  if (stateprovince !== undefined && body.state === undefined) patch.state = stateprovince
  return patch
}

/** The store's input from a venue create body. */
export const toVenueInput = (body: z.output<typeof venueCreateBody>): VenueInput =>
  ({ ...toVenuePatch(body), name: body.venue }) as VenueInput
