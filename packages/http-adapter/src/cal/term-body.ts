import { z } from 'zod'
import { optionalText, slugText } from './body-fields.js'
import { MAX_ID } from './request-schemas.js'

/** Body of `POST /categories` and `POST /tags`. */
export const termCreateBody = z.object({
  name: z.string().trim().min(1, 'is required'),
  slug: slugText,
  description: optionalText,
  parent: z.number().int().min(0).max(MAX_ID).nullable().optional(),
})

/** Body of a term update: every field optional. */
export const termUpdateBody = termCreateBody.partial().extend({
  name: z.string().trim().min(1, 'must not be empty').optional(),
})
