import { MAX_ASN } from '@kcore/engine'
import { CALENDAR_DATE_PATTERN, isCalendarDate } from '@kcore/store'
import { z } from 'zod'

export { MAX_ASN }

/** Most distinct ASNs one `POST /api/trends` may ask for. */
export const MAX_TRENDS_ASNS = 100

/** `ipv4` or `ipv6`. */
export const ipVersionSchema = z
  .enum(['ipv4', 'ipv6'], { error: 'must be ipv4 or ipv6' })
  .describe('IP version')

/** `ipv4`, `ipv6` or `both` (the trend of each version, keyed by version). */
export const trendVersionSchema = z
  .enum(['ipv4', 'ipv6', 'both'], { error: 'must be ipv4, ipv6 or both' })
  .describe('IP version; `both` answers each version, keyed by version')

/** A real calendar date, `YYYY-MM-DD`. */
export const calendarDateSchema = z
  .string({ error: 'must be a date written YYYY-MM-DD' })
  .regex(CALENDAR_DATE_PATTERN, 'must be a date written YYYY-MM-DD')
  .refine(isCalendarDate, 'must be a real calendar date from 0001-01-01 to 9999-12-31')
  .meta({ format: 'date' })

/** An ASN in a path: decimal digits only (no sign, exponent, fraction or spaces), 0..4294967295. */
export const asnPathSchema = z
  .string()
  .regex(/^\d{1,10}$/, 'must be an integer 0..4294967295 written in decimal digits')
  .transform(Number)
  .pipe(z.number().max(MAX_ASN, 'must be an integer 0..4294967295'))

/** An ASN in a JSON body: a JSON integer 0..4294967295 (strings are refused). */
export const asnNumberSchema = z
  .number({ error: 'must be an integer 0..4294967295' })
  .int('must be an integer 0..4294967295')
  .min(0, 'must be an integer 0..4294967295')
  .max(MAX_ASN, 'must be an integer 0..4294967295')

interface DateBounds {
  start_date?: string | undefined
  end_date?: string | undefined
}

/** Adds the `start_date <= end_date` rule (only when both are given). */
function orderedDates<T extends z.ZodType<DateBounds>>(schema: T) {
  return schema.superRefine((value, ctx) => {
    if (value.start_date && value.end_date && value.start_date > value.end_date) {
      ctx.addIssue({
        code: 'custom',
        path: ['start_date'],
        message: 'must not be after end_date',
        params: { range: true },
      })
    }
  })
}

const dateFields = {
  start_date: calendarDateSchema
    .optional()
    .describe('First date (inclusive); default: the earliest stored snapshot'),
  end_date: calendarDateSchema
    .optional()
    .describe('Last date (inclusive); default: the latest stored snapshot'),
}

/** Path of `GET /api/trends/{asn}`. */
export const trendParams = z.object({
  asn: asnPathSchema.describe('AS number, 0..4294967295'),
})

/** Query of `GET /api/trends/{asn}`. */
export const trendQuery = orderedDates(
  z.object({
    ip_version: trendVersionSchema.default('ipv4'),
    ...dateFields,
  }),
)

/** Body of `POST /api/trends`: 1..100 distinct ASNs (duplicates removed, first order kept). */
export const multiTrendBody = orderedDates(
  z.object(
    {
      asns: z
        .array(asnNumberSchema, { error: 'must be an array of ASNs' })
        .min(1, 'must list at least one ASN')
        .transform((asns) => [...new Set(asns)])
        .pipe(
          z
            .array(z.number())
            .max(MAX_TRENDS_ASNS, `must list at most ${MAX_TRENDS_ASNS} distinct ASNs`),
        )
        .describe(`1..${MAX_TRENDS_ASNS} ASNs; duplicates are removed, first order kept`),
      ip_version: trendVersionSchema.default('ipv4'),
      ...dateFields,
    },
    { error: 'the body must be a JSON object with an `asns` array' },
  ),
)

/** Query of `GET /api/snapshots`. */
export const snapshotsQuery = z.object({
  ip_version: ipVersionSchema.optional().describe('Only this IP version'),
})

/** Body of `POST /api/refresh`; an empty body refreshes both versions. */
export const refreshBody = z
  .object(
    {
      ip_versions: z
        .array(ipVersionSchema, { error: 'must be an array of ipv4/ipv6' })
        .min(1, 'must list at least one IP version')
        .optional()
        .describe('IP versions to refresh; default both'),
    },
    { error: 'the body must be a JSON object' },
  )
  .optional()

/** A body that is read (so a non-JSON one is 415) and ignored; an empty body is fine. */
export const ignoredBody = z
  .unknown()
  .transform(() => undefined)
  .describe('Ignored; may be empty')
