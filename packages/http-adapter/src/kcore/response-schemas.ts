import { z } from 'zod'
import { snapshotRecordSchema } from './research-schemas.js'

const date = z.string().meta({ format: 'date' })
const dateTime = z.string().meta({ format: 'date-time' })

/** The common error envelope. */
export const errorSchema = z.object({
  error: z.string().describe('Stable snake_case code'),
  message: z.string(),
  status: z.number().int(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
})

/** `GET /api/health`. */
export const healthSchema = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  version: z.string(),
  data_status: z
    .enum(['available', 'empty', 'unknown'])
    .describe('unknown when the database does not answer'),
  database: z.object({
    status: z.enum(['healthy', 'unhealthy']),
    connection: z.enum(['ok', 'error']),
    dialect: z.enum(['postgres', 'pglite']),
  }),
})

const versionSummary = z.object({
  snapshot_count: z.number().int(),
  date_range: z.tuple([date, date]).describe('[earliest, latest]'),
  total_asns: z.number().int().describe('Distinct ASNs over all snapshots'),
  max_shell_index: z.number().int(),
})

/** `GET /api/summary`: one key per IP version with data. */
export const summarySchema = z.object({
  ipv4: versionSummary.optional(),
  ipv6: versionSummary.optional(),
  breaks: z
    .object({
      version: z.number().int().describe('Bumped whenever the table changes'),
      items: z.array(
        z.object({
          date,
          ip_version: z.enum(['ipv4', 'ipv6']).optional().describe('Both when absent'),
          what: z.string(),
          source: z.string().describe('Where a reader can check it'),
        }),
      ),
    })
    .describe('Known CAIDA data/methodology breaks, oldest first'),
})

/** One point of a trend. */
export const trendPointSchema = z.object({
  date,
  shell_index: z.number().int(),
  max_shell_index: z.number().int(),
  normalized_shell_index: z.number().describe('shell_index / max_shell_index, in [0, 1]'),
})

const dateRange = z
  .object({ start: date.nullable(), end: date.nullable() })
  .describe('The range used (requested or defaulted); null where nothing is stored')

/** `GET /api/trends/{asn}`. */
export const singleTrendSchema = z.object({
  asn: z.number().int(),
  ip_version: z.enum(['ipv4', 'ipv6']),
  date_range: dateRange,
  trend_data: z.array(trendPointSchema).describe('Oldest first'),
})

/**
 * `GET /api/trends/{asn}` with `ip_version=both` too: one object, so the single-version
 * document keeps its properties; with `both`, `date_range` and `trend_data` are keyed by version.
 */
export const anyTrendSchema = singleTrendSchema.extend({
  ip_version: z.enum(['ipv4', 'ipv6', 'both']),
  date_range: z.union([dateRange, z.object({ ipv4: dateRange, ipv6: dateRange })]),
  trend_data: z.union([
    z.array(trendPointSchema).describe('Oldest first'),
    z
      .object({ ipv4: z.array(trendPointSchema), ipv6: z.array(trendPointSchema) })
      .describe('`ip_version=both`: oldest first per version; an empty array where none'),
  ]),
})

const perAsn = z
  .record(z.string(), z.array(trendPointSchema))
  .describe('A key per ASN (as a string); an empty array where there is no point')

/** `POST /api/trends`, with `ip_version: "both"` too (then keyed by version). */
export const multiTrendSchema = z.object({
  asns: z.array(z.number().int()).describe('ASNs served, duplicates removed'),
  ip_version: z.enum(['ipv4', 'ipv6', 'both']),
  date_range: z.union([dateRange, z.object({ ipv4: dateRange, ipv6: dateRange })]),
  trend_data: z.union([
    perAsn,
    z
      .object({ ipv4: perAsn, ipv6: perAsn })
      .describe('`ip_version: "both"`: the per-ASN record of each version'),
  ]),
})

const snapshotItem = snapshotRecordSchema

/** `GET /api/snapshots`. */
export const snapshotsSchema = z.object({
  ipv4: z.array(snapshotItem).optional(),
  ipv6: z.array(snapshotItem).optional(),
})

const refreshVersion = z.object({
  processed: z.boolean().describe('Checked, and every new snapshot stored without error'),
  snapshots_added: z.number().int(),
  latest_date: date.nullable(),
  success: z.boolean().describe('Same as processed (NetCores client)'),
  processed_dates: z.array(date).describe('Dates stored by this call, oldest first'),
  error: z.string().optional(),
})

/** `POST /api/refresh`. */
export const refreshSchema = z.object({
  ipv4: refreshVersion.optional(),
  ipv6: refreshVersion.optional(),
})

/** `GET /api/scheduler/status`. */
export const schedulerStatusSchema = z.object({
  running: z.boolean(),
  enabled: z.boolean(),
  next_run: dateTime.nullable(),
  schedule: z.string(),
})

const updateVersion = z.object({
  checked: z.boolean(),
  updated: z.boolean().describe('At least one new snapshot was stored'),
  new_snapshots: z.number().int().describe('How many snapshots were stored'),
  error: z.string().nullable(),
  success: z.boolean(),
})

/** `POST /api/scheduler/update`. */
export const updateSchema = z.object({
  triggered: z.literal(true),
  results: z.object({ ipv4: updateVersion, ipv6: updateVersion }),
  timestamp: dateTime,
  success: z.boolean(),
})
