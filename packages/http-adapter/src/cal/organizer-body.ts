import type { OrganizerInput, OrganizerPatch } from '@cal/store'
import { z } from 'zod'
import {
  authorId,
  imageUrl,
  optionalText,
  slugText,
  website,
  writableStatus,
} from './body-fields.js'

const organizerFields = {
  slug: slugText,
  status: writableStatus,
  author: authorId,
  description: optionalText,
  image: imageUrl,
  phone: optionalText,
  website,
  email: z
    .union([z.literal(''), z.email({ error: 'must be an e-mail address or ""' })])
    .nullable()
    .optional(),
}

/** Body of `POST /organizers` (and an inline organizer object on an event write). */
export const organizerCreateBody = z.object({
  organizer: z.string().trim().min(1, 'is required'),
  ...organizerFields,
})

/** Body of an organizer update: every field optional. */
export const organizerUpdateBody = z.object({
  organizer: z.string().trim().min(1, 'must not be empty').optional(),
  ...organizerFields,
})

/** The store's patch from an organizer body. */
export function toOrganizerPatch(body: z.output<typeof organizerUpdateBody>): OrganizerPatch {
  const { organizer, ...rest } = body
  const patch: OrganizerPatch = { ...rest }
  if (organizer !== undefined) patch.name = organizer
  return patch
}

/** The store's input from an organizer create body. */
export const toOrganizerInput = (body: z.output<typeof organizerCreateBody>): OrganizerInput =>
  ({ ...toOrganizerPatch(body), name: body.organizer }) as OrganizerInput
