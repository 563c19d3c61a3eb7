import { MAX_RESEARCH_LIMIT } from '@kcore/store'
import { z } from 'zod'
import { calendarDateSchema, ipVersionSchema } from './request-schemas.js'

/**
 * A non-negative integer query parameter written in decimal digits (at most 15, so it stays a
 * safe integer); `max` caps it where the spec does.
 */
export const countParam = (what: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d{1,15}$/, `must be an integer ${min}..${max} written in decimal digits`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `must be an integer ${min}..${max}`)
        .max(max, `must be an integer ${min}..${max}`),
    )
    .describe(what)

/** Path of `/api/snapshots/{date}` and its sub-resources. */
export const snapshotDateParams = z.object({
  date: calendarDateSchema.describe('A stored snapshot date of the IP version'),
})

/** `?ip_version=` alone. */
export const versionQuery = z.object({ ip_version: ipVersionSchema.default('ipv4') })

/** Formats of `GET /api/snapshots/{date}/shells`. */
export const SHELL_FORMATS = ['json', 'ndjson', 'csv'] as const

/** `include=names`: the AS registry's name beside each ASN of the answer. */
export const includeNames = z
  .enum(['names'], { error: 'must be names' })
  .optional()
  .describe('`names` adds the AS registry name beside each ASN (null where it has none)')

/** Query of `GET /api/snapshots/{date}/shells`. */
export const shellsQuery = z.object({
  ip_version: ipVersionSchema.default('ipv4'),
  format: z
    .enum(SHELL_FORMATS, { error: 'must be json, ndjson or csv' })
    .default('json')
    .describe('json (default), ndjson or csv'),
  min_shell: countParam('Only ASes with shell_index >= min_shell', 0).optional(),
  include: includeNames,
})

/** Query of `GET /api/snapshots/{date}/core`: `k` or `top`, not both. */
export const coreQuery = z
  .object({
    ip_version: ipVersionSchema.default('ipv4'),
    include: includeNames,
    k: countParam("The core's k; default the snapshot's max (its innermost core)", 0).optional(),
    top: countParam(
      `The N ASes with the highest shell index, 1..${MAX_RESEARCH_LIMIT}`,
      1,
      MAX_RESEARCH_LIMIT,
    ).optional(),
  })
  .refine((q) => q.k === undefined || q.top === undefined, {
    path: ['top'],
    message: 'give k or top, not both',
  })

/** Query of `GET /api/movers`. */
export const moversQuery = z.object({
  ip_version: ipVersionSchema.default('ipv4'),
  from: calendarDateSchema.describe('Earlier stored snapshot date'),
  to: calendarDateSchema.describe('Later stored snapshot date'),
  k: countParam('The core compared; default the max shell index of `to`', 0).optional(),
  limit: countParam(`Most risers and most fallers, 1..${MAX_RESEARCH_LIMIT}`, 1, MAX_RESEARCH_LIMIT)
    .optional()
    .default(100),
  include: includeNames,
})

export const date = z.string().meta({ format: 'date' })
const dateTime = z.string().meta({ format: 'date-time' })
const ipVersion = z.enum(['ipv4', 'ipv6'])
export const int = () => z.number().int()

/** A snapshot's record with its provenance (also the items of `GET /api/snapshots`). */
export const snapshotRecordSchema = z.object({
  date,
  max_shell_index: int(),
  unique_asns: int(),
  link_count: int(),
  source: z.string().nullable().describe('File name'),
  ingested_at: dateTime,
  source_url: z.string().nullable().describe('Where it was fetched; null for a local ingest'),
  serial: z.union([z.literal(1), z.literal(2)]).nullable(),
  sha256: z.string().nullable().describe('SHA-256 (hex) of the file as fetched'),
  file_modified: dateTime.nullable().describe("Provider's Last-Modified or the file's mtime"),
  engine_version: z.string().nullable().describe('@kcore/engine version that computed it'),
})

const shellRow = z.object({
  asn: int(),
  shell_index: int(),
  normalized_shell_index: z.number(),
  name: z.string().nullable().optional().describe('With include=names'),
})

/** `GET /api/snapshots/{date}/shells` (JSON). */
export const shellsSchema = z.object({
  date,
  ip_version: ipVersion,
  max_shell_index: int(),
  count: int(),
  shells: z.array(shellRow).describe('Ascending by ASN'),
})

/** `GET /api/snapshots/{date}/core`. */
export const coreSchema = z.object({
  date,
  ip_version: ipVersion,
  k: int(),
  max_shell_index: int(),
  count: int(),
  asns: z.array(int()).describe('Ascending'),
  names: z
    .array(z.string().nullable())
    .optional()
    .describe('With include=names: the registry name of each of `asns`, same order'),
})

/** `GET /api/snapshots/{date}/distribution`. */
export const distributionSchema = z.object({
  date,
  ip_version: ipVersion,
  max_shell_index: int(),
  unique_asns: int(),
  link_count: int(),
  shells: z.array(z.object({ shell_index: int(), count: int() })).describe('Non-empty, ascending'),
})

const moverName = z.string().nullable().optional().describe('With include=names')
const coreMover = z.object({
  asn: int(),
  name: moverName,
  from_shell: int().nullable(),
  to_shell: int().nullable(),
})
const rankMover = z.object({
  asn: int(),
  name: moverName,
  from_shell: int(),
  to_shell: int(),
  change: z.number().describe('normalized_shell_index(to) - normalized_shell_index(from)'),
})

/** `GET /api/movers`. */
export const moversSchema = z.object({
  ip_version: ipVersion,
  from: date,
  to: date,
  k: int(),
  entered: z.array(coreMover),
  left: z.array(coreMover),
  risers: z.array(rankMover).describe('Largest rise first'),
  fallers: z.array(rankMover).describe('Largest fall first'),
})
