import { MAX_SEARCH_LIMIT } from '@kcore/store'
import { z } from 'zod'
import { asnPathSchema } from './request-schemas.js'
import { countParam, date, int } from './research-schemas.js'

/** Path of `GET /api/asns/{asn}`. */
export const asnParams = z.object({ asn: asnPathSchema.describe('AS number, 0..4294967295') })

/** Query of `GET /api/asns`. */
export const asnSearchQuery = z.object({
  search: z
    .string()
    .describe(
      'A name (case and accents ignored) or a number (`13335`, `AS13335`), 1..200 characters',
    ),
  limit: countParam(`Most ASes answered, 1..${MAX_SEARCH_LIMIT}`, 1, MAX_SEARCH_LIMIT)
    .optional()
    .default(20),
})

const registry = z
  .object({ source: z.string(), date })
  .nullable()
  .describe(
    'The AS registry the names come from (a dated reference, not the truth); null when none is imported',
  )

const versionOverview = z
  .object({
    first_seen: date,
    last_seen: date,
    snapshots: int(),
    latest: z.object({
      date,
      shell_index: int(),
      max_shell_index: int(),
      normalized_shell_index: z.number(),
    }),
  })
  .nullable()

/** `GET /api/asns/{asn}`. */
export const asnOverviewSchema = z.object({
  asn: int(),
  ipv4: versionOverview,
  ipv6: versionOverview,
  name: z.string().nullable().describe("The registry's organisation name; null when it has none"),
  address_space: z
    .object({
      ipv4: z.object({ addresses: int(), slash24s: int(), prefixes: int() }),
      ipv6: z.object({ slash48s: int(), prefixes: int() }),
    })
    .nullable()
    .describe('Originated address space as the registry says; null when it has no entry'),
  registry,
})

/** `GET /api/asns`. */
export const asnSearchSchema = z.object({
  search: z.string(),
  registry,
  asns: z.array(z.object({ asn: int(), name: z.string() })).describe('Best match first'),
})
