import type { CalChange, CalChangeRecords, CalStore } from '@cal/store'
import type { WebhookSource } from '@kcore/webhooks'
import { renderContext } from '../cal/render-context.js'
import { renderEvent } from '../cal/render-event.js'
import { renderOrganizer } from '../cal/render-organizer.js'
import { renderTerm } from '../cal/render-term.js'
import { renderVenue } from '../cal/render-venue.js'
import { DEFAULT_PUBLIC_URL, parsePublicUrl } from '../public-url.js'

export interface CalWebhookSourceOptions {
  /** The origin links are built from, as `createHandler`'s `publicUrl` (read per read). */
  publicUrl?: string | (() => string)
  /** The service time zone, as the calendar API's (`date`/`modified`); default `UTC`. */
  timezone?: string
}

/**
 * The calendar as a webhook source (give it to `createWebhookSender`'s `sources`): each record a
 * committed write changed becomes an `event.created`, `venue.deleted`, … message, made by the
 * sender after the commit, so writes pay nothing for webhooks however many subscriptions there
 * are. It follows the store's committed changes (the changes feed's history: one write, one
 * revision, each record once per write), so a write that rolls back is never sent and one
 * that commits is sent even if the process dies right after it.
 *
 * `data` is the record as the API returns it to an anonymous caller (a password-protected
 * event without its description and excerpt), rendered when the message is made, moments after
 * the commit: a record changed again meanwhile is sent as it is then; a deleted (or trashed)
 * one, or one trashed or deleted by then, as `{id, type}`.
 *
 * @example
 * const sender = createWebhookSender(database, {
 *   sources: [calWebhookSource(cal, { publicUrl, timezone })],
 * })
 */
export function calWebhookSource(
  store: Pick<CalStore, 'committedChanges'>,
  options: CalWebhookSourceOptions = {},
): WebhookSource {
  const { publicUrl = DEFAULT_PUBLIC_URL, timezone = 'UTC' } = options
  const origin = () => parsePublicUrl(typeof publicUrl === 'function' ? publicUrl() : publicUrl)
  return {
    name: 'cal',
    api: 'cal',
    async read(trx, after, limit, wanted) {
      const { changes, through, more, records } = await store.committedChanges(after, limit, trx)
      const sent = changes.filter((c) => wanted.has(typeOf(c)))
      if (sent.length === 0) return { events: [], through, more }
      const data = await renderChanges(
        sent,
        records,
        renderContext(new URL(origin()), timezone, false),
      )
      return {
        events: sent.map((change) => ({
          type: typeOf(change),
          data: (change.action !== 'deleted' && data.get(keyOf(change))) || deleted(change),
          at: change.at,
        })),
        through,
        more,
      }
    },
  }
}

const typeOf = (c: CalChange) => `${c.kind}.${c.action}`
const keyOf = (c: Pick<CalChange, 'kind' | 'id'>) => `${c.kind}:${c.id}`

/** A deleted record's `data`: its id and type, nothing of its content. */
const deleted = (c: CalChange) => ({ id: c.id, type: c.kind })

/**
 * The records of the changes that are not deletions, as the API renders them, by kind:id; one
 * trashed or deleted since is left out (its messages carry `{id, type}`).
 */
async function renderChanges(
  changes: readonly CalChange[],
  records: CalChangeRecords,
  ctx: ReturnType<typeof renderContext>,
): Promise<Map<string, unknown>> {
  const idsOf = (kind: CalChange['kind']) =>
    changes.filter((c) => c.kind === kind && c.action !== 'deleted').map((c) => c.id)
  const live = <T extends { status: string }>(rows: T[]) => rows.filter((r) => r.status !== 'trash')
  const out = new Map<string, unknown>()
  const events = live(await records.events.getMany(idsOf('event')))
  if (events.length > 0) {
    const relations = await records.relations(events)
    for (const e of events)
      out.set(
        keyOf({ kind: 'event', id: e.id }),
        renderEvent(e, relations, ctx, { hideText: true }),
      )
  }
  for (const v of live(await records.venues.getMany(idsOf('venue'))))
    out.set(keyOf({ kind: 'venue', id: v.id }), renderVenue(v, ctx))
  for (const o of live(await records.organizers.getMany(idsOf('organizer'))))
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
