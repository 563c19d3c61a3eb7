import { isValidTimeZone } from '@cal/store'
import { z } from 'zod'
import { isDateInput } from './parse-date-input.js'
import { bodyBoolean, idParam, MAX_ID } from './request-schemas.js'

/** A positive integer id, as a JSON number or a numeric string. */
export const bodyId = z.union([z.number().int().min(1).max(MAX_ID), idParam])

/** An optional text: a string, or `null` to clear it. */
export const optionalText = z.string().max(100_000).nullable().optional()

/** A flag: JSON boolean or `true/false/1/0`. */
export const flag = bodyBoolean.optional()

/** An http(s) URL (`null` clears). */
export const imageUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .nullable()
  .optional()

/** A website: an http(s) URL or `""` (`null` clears). */
export const website = z
  .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s) URL or ""' })])
  .nullable()
  .optional()

/** Statuses a client may write (`trash` only through DELETE). */
export const writableStatus = z
  .enum(['publish', 'draft', 'pending', 'private', 'future'])
  .optional()

/** A date or date-time the API can parse. */
export const dateText = z
  .string()
  .refine(isDateInput, 'must be a date-time such as 2026-05-01 19:30:00')

/** An IANA zone name or `UTC±H[:MM]`. */
export const timezoneName = z
  .string()
  .refine(isValidTimeZone, 'must be an IANA time zone (Europe/Paris) or UTC±H[:MM]')

/** A slug a client may ask for. */
export const slugText = z.string().max(200).nullable().optional()

/** An author id (informational). */
export const authorId = z.number().int().min(0).max(MAX_ID).optional()

/**
 * A body schema that reads an empty body as `{}`, so a missing body reports each required
 * field by name instead of "expected object".
 */
export const objectBody = <T extends z.ZodObject>(schema: T) => schema.prefault({} as z.input<T>)
