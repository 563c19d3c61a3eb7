import { z } from 'zod'
import { asnNumberSchema, calendarDateSchema, ipVersionSchema } from './request-schemas.js'
import { date } from './research-schemas.js'

/** Most ASNs one what-if question may remove. */
export const MAX_WHAT_IF_ASNS = 1000

/** Most links one what-if question may name, removed and added together. */
export const MAX_WHAT_IF_LINKS = 10_000

const link = z
  .tuple([asnNumberSchema, asnNumberSchema], { error: 'must be a pair [asn, asn]' })
  .describe('A link as two ASNs; order does not matter')

const links = (what: string) =>
  z
    .array(link, { error: 'must be an array of [asn, asn] pairs' })
    .max(MAX_WHAT_IF_LINKS, `must list at most ${MAX_WHAT_IF_LINKS} links`)
    .optional()
    .describe(what)

/** The change a question asks about; the route passes it to `whatIf` as it is. */
const changeFields = {
  remove_asns: z
    .array(asnNumberSchema, { error: 'must be an array of ASNs' })
    .max(MAX_WHAT_IF_ASNS, `must list at most ${MAX_WHAT_IF_ASNS} ASNs`)
    .optional()
    .describe(
      `ASes removed with all their links (at most ${MAX_WHAT_IF_ASNS}); one not in the snapshot or ` +
        'named twice is counted as ignored',
    ),
  remove_links: links('Links removed (after the ASes); one not in the snapshot is ignored'),
  add_links: links(
    'Links added (last); an AS not in the snapshot joins it, a link to a removed AS or a ' +
      'self-link is ignored',
  ),
}

interface ChangeFields {
  remove_links?: unknown[] | undefined
  add_links?: unknown[] | undefined
}

/** Adds the "links in all" bound: removed and added links together. */
function boundedLinks<T extends z.ZodType<ChangeFields>>(schema: T) {
  return schema.superRefine((value, ctx) => {
    const total = (value.remove_links?.length ?? 0) + (value.add_links?.length ?? 0)
    if (total > MAX_WHAT_IF_LINKS)
      ctx.addIssue({
        code: 'custom',
        path: ['add_links'],
        message: `remove_links and add_links must list at most ${MAX_WHAT_IF_LINKS} links in all, got ${total}`,
      })
  })
}

const bodyError = {
  error: (issue: { code?: string; keys?: string[] }) =>
    issue.code === 'unrecognized_keys'
      ? `unknown key(s) ${(issue.keys ?? []).join(', ')}: the body takes the documented keys only`
      : 'the body must be a JSON object',
}

/**
 * Body of `POST /api/what-if`. Unknown keys are refused: a misspelt `remove_asn` would
 * otherwise answer "nothing changes".
 */
export const whatIfBody = boundedLinks(
  z.strictObject(
    {
      date: calendarDateSchema.describe('A stored snapshot date of the IP version'),
      ip_version: ipVersionSchema.default('ipv4'),
      ...changeFields,
    },
    bodyError,
  ),
)

/** Body of `POST /api/what-if/history`: the same change over a date range. */
export const whatIfHistoryBody = boundedLinks(
  z
    .strictObject(
      {
        from: calendarDateSchema
          .optional()
          .describe('First date (inclusive); default the earliest stored'),
        to: calendarDateSchema
          .optional()
          .describe('Last date (inclusive); default the latest stored'),
        ip_version: ipVersionSchema.default('ipv4'),
        ...changeFields,
      },
      bodyError,
    )
    .refine((b) => b.from === undefined || b.to === undefined || b.from <= b.to, {
      path: ['from'],
      message: 'must not be after to',
    }),
)

const shell = z.number().int()

/** `counts` of an answer: `WhatIfCounts` in snake case. */
export const whatIfCountsSchema = z.object({
  changed: z.number().int().describe('ASes present before and after whose shell index changed'),
  removed_asns: z.number().int().describe('ASes of the snapshot removed'),
  added_asns: z.number().int().describe('ASes added links brought in'),
  ignored_asns: z.number().int().describe('Entries of remove_asns that changed nothing'),
  removed_links: z
    .number()
    .int()
    .describe("Links of the snapshot gone: named ones and the removed ASes' links"),
  added_links: z.number().int().describe('Links not in the snapshot that were added'),
  ignored_links: z
    .number()
    .int()
    .describe('Entries of remove_links and add_links that changed nothing'),
})

/** `POST /api/what-if`. */
export const whatIfSchema = z.object({
  date,
  ip_version: z.enum(['ipv4', 'ipv6']),
  max_shell_before: shell.describe('Largest shell index of the snapshot'),
  max_shell: shell.describe('Largest shell index after the change (0 when no AS is left)'),
  counts: whatIfCountsSchema,
  changes: z
    .array(
      z.object({
        asn: z.number().int(),
        before: shell.nullable().describe('null for an AS an added link brings in'),
        after: shell.nullable().describe('null for a removed AS'),
      }),
    )
    .describe('Every AS whose shell index changes, ascending ASN'),
})

/**
 * One line of `POST /api/what-if/history`: a snapshot's answer, or why there is none (the
 * OpenAPI document describes the stream in text; tests check lines against this).
 */
export const whatIfHistoryLineSchema = z.union([
  z.object({
    date,
    max_shell_before: shell,
    max_shell: shell,
    counts: whatIfCountsSchema,
    changed_asns: z.number().int().describe('ASes whose shell index changes (`changes` length)'),
  }),
  z.object({
    date,
    error: z
      .enum(['snapshot_links_not_stored', 'snapshot_replaced'])
      .describe(
        'Its links are not stored (ingested before they were), or it was replaced while streamed',
      ),
    message: z.string(),
  }),
])
