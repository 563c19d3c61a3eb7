import { type Kysely, sql } from 'kysely'
import type { ModelAnswer } from './cal-model.js'

/** Where the checks look: the database, and the API's public reads. */
export interface InvariantTarget {
  // biome-ignore lint/suspicious/noExplicitAny: raw SQL only
  db: Kysely<any>
  get(path: string): Promise<ModelAnswer>
}

/** DELETE answers per record (`kind:id`): how many reported the deletion (200). */
export type DeleteTally = Map<string, { kind: string; id: number; reported: number }>

/**
 * Every calendar invariant of issue 11 checked against the database (and the API's reads of
 * it); returns what is broken, one line each (empty when all hold):
 * category parents acyclic; event links point at live (existing, not trashed) records; each
 * deletion reported exactly once; stored term counts equal the published events using them;
 * the event list, its total and the by-id reads agree with each other and with the tables.
 */
export async function calendarInvariantBreaks(
  cal: InvariantTarget,
  deletes: DeleteTally,
): Promise<string[]> {
  const db = cal.db
  const breaks: string[] = []
  const rows = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows

  const terms = await rows<{
    id: number
    taxonomy: string
    parent_id: number | null
    count: number
  }>(sql`select id, taxonomy, parent_id, count from cal_term`)
  const parentOf = new Map(terms.map((t) => [t.id, t.parent_id]))
  for (const term of terms) {
    const seen = new Set<number>()
    for (let at: number | null | undefined = term.id; at; at = parentOf.get(at)) {
      if (seen.has(at)) {
        breaks.push(`category ${term.id} is its own ancestor`)
        break
      }
      seen.add(at)
    }
    if (term.parent_id !== null && !parentOf.has(term.parent_id)) {
      breaks.push(`term ${term.id} has a gone parent ${term.parent_id}`)
    }
  }

  for (const link of await rows<{ what: string; event_id: number; id: number }>(sql`
      select 'venue' as what, e.id as event_id, e.venue_id as id from cal_event e
        left join cal_venue v on v.id = e.venue_id
        where e.venue_id is not null and (v.id is null or v.status = 'trash')
      union all
      select 'organizer', eo.event_id, eo.organizer_id from cal_event_organizer eo
        left join cal_organizer o on o.id = eo.organizer_id
        where o.id is null or o.status = 'trash'
      union all
      select 'term', et.event_id, et.term_id from cal_event_term et
        left join cal_term t on t.id = et.term_id where t.id is null`)) {
    breaks.push(`event ${link.event_id} links a gone or trashed ${link.what} ${link.id}`)
  }

  const statusOf = new Map<string, string>()
  for (const r of await rows<{ kind: string; id: number; status: string }>(sql`
      select 'events' as kind, id, status from cal_event
      union all select 'venues', id, status from cal_venue
      union all select 'organizers', id, status from cal_organizer`)) {
    statusOf.set(`${r.kind}:${r.id}`, r.status)
  }
  for (const t of terms) {
    statusOf.set(`${t.taxonomy === 'cal_event_tag' ? 'tags' : 'categories'}:${t.id}`, 'live')
  }
  for (const [key, { kind, reported }] of deletes) {
    if (reported > 1) breaks.push(`${key}: deletion reported ${reported} times`)
    const status = statusOf.get(key)
    const gone =
      kind === 'categories' || kind === 'tags' ? status === undefined : status === 'trash'
    // Terms are only deleted by DELETE, venues and organizers only trashed by it.
    if (gone && reported !== 1) breaks.push(`${key}: deleted but reported ${reported} times`)
    if (!gone && reported > 0 && kind !== 'events')
      breaks.push(`${key}: reported deleted, still there`)
  }
  for (const [key, status] of statusOf) {
    if (status === 'trash' && !deletes.has(key)) breaks.push(`${key}: trashed without a DELETE`)
  }

  for (const wrong of await rows<{ id: number; count: number; actual: number }>(sql`
      select t.id, t.count, (select count(*) from cal_event_term et join cal_event e
        on e.id = et.event_id where et.term_id = t.id and e.status = 'publish')::int as actual
      from cal_term t`)) {
    if (Number(wrong.count) !== wrong.actual) {
      breaks.push(`term ${wrong.id}: count ${wrong.count}, ${wrong.actual} published events`)
    }
  }

  // The list (every page), its total, and each event's own read agree with the tables.
  const expected = await rows<{ id: number }>(sql`
      select id from cal_event where status = 'publish' and not hide_from_listings order by id`)
  const listed: Record<string, unknown>[] = []
  for (let page = 1; ; page++) {
    // A window around every date the model writes (June 2026), whatever the server's clock.
    const window = 'start_date=2020-01-01%2000:00:00&end_date=2030-12-31%2023:59:59'
    const answer = await cal.get(`/events?per_page=50&page=${page}&${window}`)
    if (answer.status !== 200) {
      breaks.push(`list page ${page}: ${answer.status}`)
      break
    }
    if (answer.body.total !== expected.length) {
      breaks.push(`list total ${answer.body.total}, ${expected.length} published events`)
    }
    listed.push(...answer.body.events)
    if (answer.body.events.length < 50) break
  }
  const listedIds = listed.map((e) => e.id as number).sort((a, b) => a - b)
  if (JSON.stringify(listedIds) !== JSON.stringify(expected.map((e) => e.id))) {
    breaks.push(`list ids ${listedIds} ≠ published ids ${expected.map((e) => e.id)}`)
  }
  const links = await rows<{
    id: number
    venue: number
    organizers: number[]
    terms: number[]
  }>(sql`
      select e.id, coalesce(e.venue_id, 0) as venue,
        array(select organizer_id from cal_event_organizer where event_id = e.id order by 1) as organizers,
        array(select term_id from cal_event_term where event_id = e.id order by 1) as terms
      from cal_event e`)
  const linksOf = new Map(links.map((l) => [l.id, l]))
  const shape = (e: Record<string, unknown>) => {
    const ids = (list: unknown) => (list as { id: number }[]).map((x) => x.id).sort((a, b) => a - b)
    return JSON.stringify({
      venue: (e.venue as { id?: number }).id ?? 0,
      organizers: ids(e.organizer),
      terms: [...ids(e.categories), ...ids(e.tags)].sort((a, b) => a - b),
    })
  }
  for (const event of listed) {
    const one = await cal.get(`/events/${event.id}`)
    const stored = linksOf.get(event.id as number)
    const want =
      stored &&
      JSON.stringify({ venue: stored.venue, organizers: stored.organizers, terms: stored.terms })
    if (one.status !== 200 || shape(one.body) !== shape(event) || shape(event) !== want) {
      breaks.push(
        `event ${event.id}: list ${shape(event)}, read ${one.status} ${shape(one.body)}, tables ${want}`,
      )
    }
  }
  return breaks
}
