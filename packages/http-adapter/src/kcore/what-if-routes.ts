import { type GraphChange, type WhatIfResult, whatIfInWorker } from '@kcore/engine'
import type { SnapshotGraphEntry } from '@kcore/store'
import { jsonResponse } from '../json-response.js'
import type { Route } from '../route.js'
import { kcoreRoute } from './kcore-context.js'
import { errorSchema } from './response-schemas.js'
import {
  MAX_WHAT_IF_ASNS,
  MAX_WHAT_IF_LINKS,
  whatIfBody,
  whatIfHistoryBody,
  whatIfSchema,
} from './what-if-schemas.js'

/** Content type of the history stream. */
const NDJSON = 'application/x-ndjson; charset=utf-8'

const badRequest = {
  description: `Bad date, IP version, change or body (at most ${MAX_WHAT_IF_ASNS} ASNs and ${MAX_WHAT_IF_LINKS} links; unknown keys refused)`,
  schema: errorSchema,
}

const CHANGE_TEXT =
  'The change: `remove_asns` (each removed with all its links), then `remove_links`, then ' +
  '`add_links` (a link to an AS not in the snapshot brings it in). What changes nothing ' +
  '(an AS not in the snapshot, a link named twice or reversed, a self-link) is counted as ' +
  `ignored, never an error. At most ${MAX_WHAT_IF_ASNS} ASNs and ${MAX_WHAT_IF_LINKS} links in all.`

/** The body's change in the engine's terms. */
function changeOf(body: {
  remove_asns?: number[] | undefined
  remove_links?: [number, number][] | undefined
  add_links?: [number, number][] | undefined
}): GraphChange {
  return {
    removeAsns: body.remove_asns ?? [],
    removeLinks: body.remove_links ?? [],
    addLinks: body.add_links ?? [],
  }
}

/** `WhatIfCounts` in the API's snake case. */
function countsOf({ counts }: WhatIfResult) {
  return {
    changed: counts.changed,
    removed_asns: counts.removedAsns,
    added_asns: counts.addedAsns,
    ignored_asns: counts.ignoredAsns,
    removed_links: counts.removedLinks,
    added_links: counts.addedLinks,
    ignored_links: counts.ignoredLinks,
  }
}

/** One history line: the snapshot's answer in brief, or why it has none. */
async function historyLine(
  entry: SnapshotGraphEntry,
  change: GraphChange,
  signal: AbortSignal,
): Promise<string> {
  if (entry.status === 'links_not_stored')
    return JSON.stringify({
      date: entry.date,
      error: 'snapshot_links_not_stored',
      message: `the links of the snapshot of ${entry.date} are not stored; ingest it again to store them`,
    })
  if (entry.status !== 'ok')
    return JSON.stringify({
      date: entry.date,
      error: 'snapshot_replaced',
      message: `the snapshot of ${entry.date} was replaced while the history was read; ask again`,
    })
  const result = await whatIfInWorker(entry.graph, change, { before: entry.decomposition, signal })
  return JSON.stringify({
    date: entry.date,
    max_shell_before: result.maxShellBefore,
    max_shell: result.maxShell,
    counts: countsOf(result),
    changed_asns: result.changes.length,
  })
}

/**
 * The what-if routes (issue #44): a snapshot's k-core decomposition if some ASes or links were
 * gone or added, answered exactly by `whatIf` on the stored graph (decoded once per revision
 * and shared, see the store's `snapshotGraph`) in a decode worker, off the thread answering
 * requests; and the same question over a date range, streamed one NDJSON line per snapshot as
 * each is computed. POST routes (the change can be
 * long): no ETag, every answer is computed.
 */
export function whatIfRoutes(): Route[] {
  return [
    kcoreRoute({
      method: 'POST',
      path: '/what-if',
      summary: 'Which ASes change shell index if some ASes or links were removed or added',
      description: `${CHANGE_TEXT} The answer lists every AS whose shell index changes (before, after), the new largest shell index and counts.`,
      body: whatIfBody,
      reads: true,
      responses: {
        200: { description: 'The changed shell indices', schema: whatIfSchema },
        400: badRequest,
        404: {
          description: 'No snapshot of the IP version is stored for the date',
          schema: errorSchema,
        },
        409: {
          description:
            '`snapshot_links_not_stored`: the snapshot was stored before its links were (ingest it again)',
          schema: errorSchema,
        },
      },
      handle: async ({ body, reader, request }) => {
        const stored = await reader.snapshotGraph(body.ip_version, body.date)
        // In a decode worker: the thread answering requests only copies the graph over.
        const result = await whatIfInWorker(stored.graph, changeOf(body), {
          before: stored.decomposition,
          signal: request.signal,
        })
        return jsonResponse({
          date: body.date,
          ip_version: body.ip_version,
          max_shell_before: result.maxShellBefore,
          max_shell: result.maxShell,
          counts: countsOf(result),
          changes: result.changes,
        })
      },
    }),
    kcoreRoute({
      method: 'POST',
      path: '/what-if/history',
      summary: 'The same what-if question on every stored snapshot of a date range, streamed',
      description:
        `${CHANGE_TEXT} \`application/x-ndjson\`: one line per stored snapshot, oldest first, ` +
        'written as it is computed: `{date, max_shell_before, max_shell, counts, changed_asns}`, ' +
        'or `{date, error, message}` for a snapshot whose links are not stored ' +
        '(`snapshot_links_not_stored`) or that was replaced while the stream ran ' +
        '(`snapshot_replaced`): the lines answer the snapshots stored when the stream began. ' +
        'A client that goes away stops the work.',
      body: whatIfHistoryBody,
      reads: true,
      responses: {
        200: {
          description: 'One line per snapshot, oldest first',
          alternatives: {
            'application/x-ndjson':
              'One JSON object per line: `{date, max_shell_before, max_shell, counts, changed_asns}` ' +
              '(counts as `POST /api/what-if`), or `{date, error, message}` with error ' +
              '`snapshot_links_not_stored` or `snapshot_replaced`',
          },
        },
        400: badRequest,
      },
      handle: async ({ body, reader, request }) => {
        const change = changeOf(body)
        // Stops the reads when the client goes away (the request's signal) or cancels the body.
        const stop = new AbortController()
        const onAbort = () => stop.abort(request.signal.reason)
        request.signal.addEventListener('abort', onAbort, { once: true })
        const entries = reader.snapshotGraphs(
          body.ip_version,
          { start: body.from, end: body.to },
          { signal: stop.signal },
        )
        const done = async () => {
          request.signal.removeEventListener('abort', onAbort)
          await entries.return(undefined)
        }
        // The first snapshot is read before the answer starts: a failing database is a 5xx,
        // not a 200 cut short.
        let next: IteratorResult<SnapshotGraphEntry> | undefined
        try {
          next = await entries.next()
        } catch (error) {
          await done()
          throw error
        }
        const encoder = new TextEncoder()
        const stream = new ReadableStream<Uint8Array>(
          {
            async pull(controller) {
              try {
                const current = next ?? (await entries.next())
                next = undefined
                if (current.done) {
                  await done()
                  controller.close()
                  return
                }
                const line = await historyLine(current.value, change, stop.signal)
                controller.enqueue(encoder.encode(`${line}\n`))
              } catch (error) {
                // an abort or a failing read: the stream ends in error, the reads are released
                await done()
                throw error
              }
            },
            async cancel(reason) {
              stop.abort(reason)
              await done()
            },
          },
          { highWaterMark: 0 },
        )
        return new Response(stream, { headers: new Headers({ 'content-type': NDJSON }) })
      },
    }),
  ]
}
