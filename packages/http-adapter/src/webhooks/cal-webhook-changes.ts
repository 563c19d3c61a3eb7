import type { CalChange, CalChangeHook, CalChangeRecords } from '@cal/store'
import { enqueueWebhooks } from '@kcore/db/webhooks'
import { renderContext } from '../cal/render-context.js'
import { loadRelations, renderEvent } from '../cal/render-event.js'
import { renderOrganizer } from '../cal/render-organizer.js'
import { renderTerm } from '../cal/render-term.js'
import { renderVenue } from '../cal/render-venue.js'
import { DEFAULT_PUBLIC_URL, parsePublicUrl } from '../public-url.js'

export interface CalWebhookChangesOptions {
  /** The origin links are built from, as `createHandler`'s `publicUrl` (read per write). */
  publicUrl?: string | (() => string)
  /** The service time zone, as the calendar API's (`date`/`modified`); default `UTC`. */
  timezone?: string
}

/**
 * The calendar store's `onChanges` hook that writes the webhook outbox: each change becomes an
 * `event.created`, `venue.deleted`, … message, in the write's transaction (it commits with the
 * change or not at all). `data` is the record as the API returns it, rendered here, at the
 * write, from what the transaction wrote: an event as an anonymous caller sees it (a
 * password-protected one without its description and excerpt), a deleted (or trashed) record
 * as `{id, type}`.
 *
 * Round trips inside the write: the types the subscriptions want are known from the previous
 * write's enqueue (the statement that writes the messages also reads them), so a write whose
 * changes someone wants renders them and writes every message in one statement; only a write
 * none of whose changes was wanted last time asks first (one small query), since a subscription
 * may have come since in any process. What was known is a hint, never the decision: the insert
 * joins the subscriptions as they are in its statement, and when they want a type the write had
 * not rendered (a subscription made meanwhile), those changes are rendered and written too.
 *
 * @example
 * const cal = createCalStore(database, { onChanges: calWebhookChanges({ publicUrl, timezone }) })
 */
export function calWebhookChanges(options: CalWebhookChangesOptions = {}): CalChangeHook {
  const { publicUrl = DEFAULT_PUBLIC_URL, timezone = 'UTC' } = options
  const origin = () => parsePublicUrl(typeof publicUrl === 'function' ? publicUrl() : publicUrl)
  /** The types the calendar's subscriptions wanted when this process last looked. */
  let known: ReadonlySet<string> = new Set()
  return async (trx, changes, records) => {
    let wanted = known
    if (!changes.some((c) => wanted.has(typeOf(c)))) {
      // At most 100 rows (the cap per API): what this write may have to tell anyone.
      const rows: { events: string[] }[] = await trx
        .selectFrom('webhook_subscription')
        .select('events')
        .where('api', '=', 'cal')
        .execute()
      wanted = known = new Set(rows.flatMap((r) => r.events))
    }
    let sent = changes.filter((c) => wanted.has(typeOf(c)))
    if (sent.length === 0) return
    const render = renderContext(new URL(origin()), timezone, false)
    while (sent.length > 0) {
      const data = await renderChanges(sent, records, render)
      const done = await enqueueWebhooks(
        trx,
        'cal',
        sent.map((change) => ({
          type: typeOf(change),
          data: data.get(keyOf(change)) ?? deleted(change),
        })),
      )
      known = done.wanted
      const rendered = wanted
      sent = changes.filter((c) => done.wanted.has(typeOf(c)) && !rendered.has(typeOf(c)))
      wanted = new Set([...rendered, ...done.wanted])
    }
  }
}

const typeOf = (c: CalChange) => `${c.kind}.${c.action}`
const keyOf = (c: Pick<CalChange, 'kind' | 'id'>) => `${c.kind}:${c.id}`

/** A deleted record's `data`: its id and type, nothing of its content. */
const deleted = (c: CalChange) => ({ id: c.id, type: c.kind })

/** The records of the changes that are not deletions, as the API renders them, by kind:id. */
async function renderChanges(
  changes: readonly CalChange[],
  records: CalChangeRecords,
  ctx: ReturnType<typeof renderContext>,
): Promise<Map<string, unknown>> {
  const idsOf = (kind: CalChange['kind']) =>
    changes.filter((c) => c.kind === kind && c.action !== 'deleted').map((c) => c.id)
  const out = new Map<string, unknown>()
  const events = await records.events.getMany(idsOf('event'))
  if (events.length > 0) {
    const relations = await loadRelations(records, events)
    for (const e of events)
      out.set(
        keyOf({ kind: 'event', id: e.id }),
        renderEvent(e, relations, ctx, { hideText: true }),
      )
  }
  for (const v of await records.venues.getMany(idsOf('venue')))
    out.set(keyOf({ kind: 'venue', id: v.id }), renderVenue(v, ctx))
  for (const o of await records.organizers.getMany(idsOf('organizer')))
    out.set(keyOf({ kind: 'organizer', id: o.id }), renderOrganizer(o, ctx))
  for (const [kind, terms] of [
    ['category', records.categories],
    ['tag', records.tags],
  ] as const) {
    for (const t of await terms.getMany(idsOf(kind)))
      out.set(keyOf({ kind, id: t.id }), renderTerm(t, ctx))
  }
  return out
}
