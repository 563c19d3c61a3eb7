import { z } from 'zod'
import { optionalText, slugText } from './body-fields.js'

/** Body of `POST /categories` and `POST /tags`. */
export const termCreateBody = z.object({
  name: z.string().trim().min(1, 'is required'),
  slug: slugText,
  description: optionalText,
  parent: z.number().int().nonnegative().nullable().optional(),
})

/** Body of a term update: every field optional. */
export const termUpdateBody = termCreateBody.partial().extend({
  name: z.string().trim().min(1, 'must not be empty').optional(),
})
