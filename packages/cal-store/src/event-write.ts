import { type Insertable, sql } from 'kysely'
import { allDayBounds } from './all-day.js'
import { assertDateInRange } from './date-range.js'
import {
  CalNotFoundError,
  CalStaleReadError,
  CalUnknownReferenceError,
  CalValidationError,
} from './errors.js'
import {
  EVENT_FLAGS,
  type EventInput,
  type EventPatch,
  type OrganizerRef,
  type VenueRef,
} from './event.js'
import { checkEventLinks } from './event-links.js'
import { EVENT_COLUMNS, type EventRow, serializeCost } from './event-rows.js'
import { idIn, validIds } from './id-list.js'
import { checkAuthor, rejectNul } from './input-guard.js'
import { findOrInsertOrganizers, lockOrganizerNames } from './organizer-repository.js'
import { hashPassword } from './password.js'
import type { EventTable } from './schema.js'
import {
  type CarriedRelation,
  carryRelations,
  carryToOverrides,
  dropLostOverrides,
  dropOverrides,
  nextSeriesSlot,
  overridesHolding,
} from './series-overrides.js'
import {
  compileGiven,
  compileStored,
  type Recurrence,
  recurrenceText,
} from './series-recurrence.js'
import { slugify } from './slug.js'
import { allocateSlug } from './slug-allocation.js'
import type { CalDb } from './store-context.js'
import { lockEventTerms, resolveTermRefs } from './term-repository.js'
import { textOrNull } from './text-or-null.js'
import { assertTimeZone } from './time-zone.js'
import { timestampParam } from './timestamp-param.js'
import { retryOnUniqueViolation } from './unique-violation.js'
import { findOrInsertVenue } from './venue-repository.js'

const TEXT_FIELDS = ['image', 'website'] as const

function requireTitle(title: unknown): string {
  if (typeof title !== 'string' || title.trim() === '') {
    throw new CalValidationError('title', 'an event needs a title')
  }
  return title.trim()
}

function checkParentId(parent: number | null | undefined): void {
  if (parent !== undefined && parent !== null && !Number.isInteger(parent)) {
    throw new CalValidationError('post_parent', 'must be an event id')
  }
}

function requireDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new CalValidationError(field, 'must be a valid date')
  }
  return value
}

/** Start/end after the all-day rule, checked for order. */
export function eventTimes(
  start: Date,
  end: Date,
  zone: string,
  allDay: boolean,
): { start: Date; end: Date } {
  assertTimeZone(zone)
  assertDateInRange(start, zone, 'start_date')
  assertDateInRange(end, zone, 'end_date')
  const times = allDay ? allDayBounds(start, end, zone) : { start, end }
  if (times.end.getTime() < times.start.getTime()) {
    throw new CalValidationError('end_date', 'the event ends before it starts')
  }
  return times
}

/** Hashes a password field outside any transaction (scrypt is slow on purpose). */
export async function passwordHashOf(
  password: string | null | undefined,
): Promise<string | null | undefined> {
  if (password === undefined) return undefined
  return password === null || password === '' ? null : hashPassword(password)
}

/**
 * Checks that the venues or organizers `ids` exist and are not trashed, and holds them `FOR
 * SHARE` (in id order) until commit: a concurrent trash (an UPDATE) waits for this write and
 * then unlinks what it linked, or ran first and this write sees the trash (400, the serial
 * order's answer). Checked without the lock, a trash could land between check and link.
 */
async function lockLiveRecords(
  trx: CalDb,
  table: 'cal_venue' | 'cal_organizer',
  field: string,
  ids: readonly number[],
): Promise<void> {
  const wanted = validIds(ids)
  const rows = wanted.length
    ? await trx
        .selectFrom(table)
        .select('id')
        .where(idIn('id', wanted))
        .where('status', '<>', 'trash')
        .orderBy('id')
        .forShare()
        .execute()
    : []
  const live = new Set(rows.map((r) => r.id))
  const missing = ids.find((id) => !live.has(id))
  if (missing !== undefined) throw new CalUnknownReferenceError(field, missing)
}

async function resolveVenue(trx: CalDb, now: Date, ref: VenueRef): Promise<number> {
  if (typeof ref === 'number') {
    await lockLiveRecords(trx, 'cal_venue', 'venue', [ref])
    return ref
  }
  return findOrInsertVenue(trx, now, ref)
}

async function resolveOrganizers(
  trx: CalDb,
  now: Date,
  refs: readonly OrganizerRef[],
): Promise<number[]> {
  const inline = refs.filter((ref) => typeof ref !== 'number')
  // All name locks first, in one order: writers naming [A, B] and [B, A] would deadlock.
  await lockOrganizerNames(trx, inline)
  await lockLiveRecords(
    trx,
    'cal_organizer',
    'organizer',
    refs.filter((ref) => typeof ref === 'number'),
  )
  const made = await findOrInsertOrganizers(trx, now, inline)
  let next = 0
  const ids = refs.map((ref) => (typeof ref === 'number' ? ref : (made[next++] as number)))
  return [...new Set(ids)]
}

async function checkParentEvent(trx: CalDb, parent: number, self?: number): Promise<void> {
  if (parent === self)
    throw new CalValidationError('post_parent', 'an event cannot be its own parent')
  const found = validIds([parent]).length
    ? await trx.selectFrom('cal_event').select('id').where('id', '=', parent).executeTakeFirst()
    : undefined
  if (!found) throw new CalUnknownReferenceError('post_parent', parent)
}

async function writeRelations(
  trx: CalDb,
  id: number,
  relations: { organizers?: number[]; categories?: number[]; tags?: number[] },
  replace: boolean,
): Promise<void> {
  if (relations.organizers) {
    if (replace) await trx.deleteFrom('cal_event_organizer').where('event_id', '=', id).execute()
    if (relations.organizers.length > 0) {
      // One array parameter however many: a list of values stops at 65,535 parameters.
      await sql`insert into cal_event_organizer (event_id, organizer_id, position)
        select ${id}::integer, o.id, o.n - 1
        from unnest(${relations.organizers}::integer[]) with ordinality as o(id, n)`.execute(trx)
    }
  }
  for (const [taxonomy, terms] of [
    ['cal_event_category', relations.categories],
    ['cal_event_tag', relations.tags],
  ] as const) {
    if (!terms) continue
    if (replace) {
      await trx
        .deleteFrom('cal_event_term')
        .where('event_id', '=', id)
        .where('term_id', 'in', (eb) =>
          eb.selectFrom('cal_term').select('id').where('taxonomy', '=', taxonomy),
        )
        .execute()
    }
    if (terms.length > 0) {
      await sql`insert into cal_event_term (event_id, term_id)
        select ${id}::integer, unnest(${terms}::integer[])`.execute(trx)
    }
  }
}

/** Creates one event (and what it names inline) inside the open transaction `trx`. */
export async function insertEvent(
  trx: CalDb,
  now: Date,
  input: EventInput,
  passwordHash: string | null,
): Promise<number> {
  rejectNul(input)
  checkEventLinks(input)
  checkParentId(input.post_parent)
  const title = requireTitle(input.title)
  const zone = input.timezone ?? 'UTC'
  const times = eventTimes(
    requireDate(input.start, 'start_date'),
    requireDate(input.end, 'end_date'),
    zone,
    input.all_day ?? false,
  )
  // A series is checked (the core's every refusal) before anything is written.
  const series =
    input.recurrence === undefined || input.recurrence === null
      ? undefined
      : compileGiven(input.recurrence, {
          start: times.start,
          end: times.end,
          timezone: zone,
          all_day: input.all_day ?? false,
        })
  const venueId =
    input.venue === undefined || input.venue === null
      ? null
      : await resolveVenue(trx, now, input.venue)
  const organizers = await resolveOrganizers(trx, now, input.organizers ?? [])
  const categories = await resolveTermRefs(
    trx,
    'cal_event_category',
    'categories',
    input.categories ?? [],
  )
  const tags = await resolveTermRefs(trx, 'cal_event_tag', 'tags', input.tags ?? [])
  await lockEventTerms(trx, [
    { field: 'categories', refs: input.categories ?? [], ids: categories },
    { field: 'tags', refs: input.tags ?? [], ids: tags },
  ])
  if (input.post_parent !== undefined && input.post_parent !== null) {
    await checkParentEvent(trx, input.post_parent)
  }
  const base = slugify(input.slug || title, 'event')
  const values: Omit<Insertable<EventTable>, 'slug'> = {
    author: checkAuthor(input.author),
    status: input.status ?? 'publish',
    created: input.created ?? now,
    modified: input.created ?? now,
    title,
    description: input.description ?? '',
    excerpt: input.excerpt ?? '',
    all_day: input.all_day ?? false,
    start_utc: timestampParam(times.start),
    end_utc: timestampParam(times.end),
    timezone: zone,
    cost: serializeCost(input.cost),
    post_parent: input.post_parent ?? null,
    password_hash: passwordHash,
    venue_id: venueId,
    image: textOrNull(input.image),
    website: textOrNull(input.website),
    show_map: input.show_map ?? false,
    show_map_link: input.show_map_link ?? false,
    hide_from_listings: input.hide_from_listings ?? false,
    sticky: input.sticky ?? false,
    featured: input.featured ?? false,
    ticketed: input.ticketed ?? false,
    ...(series && { recurrence: recurrenceText(series), series_slot: await nextSeriesSlot(trx) }),
  }
  const id = await retryOnUniqueViolation(
    trx,
    (c) => c.includes('slug'),
    async () => {
      const slug = await allocateSlug(trx, 'cal_event', base)
      const row = await trx
        .insertInto('cal_event')
        .values({ ...values, slug })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },
  )
  await writeRelations(trx, id, { organizers, categories, tags }, false)
  return id
}

/**
 * Applies a partial update to the event row `id` inside the open transaction `trx`. On a series
 * (or one becoming a series through `patch.recurrence`) a change of the rule or of the times
 * recompiles it and drops the overrides whose occurrence no longer exists: their occurrence
 * ids are returned (`recurrence: null` drops them all). `options.current` is the row when the
 * caller has already read it `FOR UPDATE` in `trx` (one round trip fewer).
 */
export async function patchEvent(
  trx: CalDb,
  now: Date,
  id: number,
  patch: EventPatch,
  passwordHash: string | null | undefined,
  options: { ifSequence?: number; current?: EventRow } = {},
): Promise<number[]> {
  rejectNul(patch)
  checkEventLinks(patch)
  checkParentId(patch.post_parent)
  const { ifSequence } = options
  const current: EventRow | undefined =
    options.current ??
    (validIds([id]).length
      ? await trx
          .selectFrom('cal_event')
          .select(EVENT_COLUMNS)
          .where('id', '=', id)
          .forUpdate()
          .executeTakeFirst()
      : undefined)
  if (!current) throw new CalNotFoundError('event', id)
  if (ifSequence !== undefined && current.sequence !== ifSequence)
    throw new CalStaleReadError(id, ifSequence, current.sequence)
  if (current.occurrence_key !== null && patch.recurrence !== undefined) {
    throw new CalValidationError('recurrence', 'an edited occurrence has no rule of its own')
  }
  if (current.occurrence_key !== null && patch.post_parent !== undefined) {
    throw new CalValidationError('post_parent', 'an occurrence belongs to its series')
  }
  const changes: Partial<Insertable<EventTable>> = { modified: now }
  if (patch.title !== undefined) changes.title = requireTitle(patch.title)
  if (patch.status !== undefined && patch.status !== null) changes.status = patch.status
  if (patch.author !== undefined) changes.author = checkAuthor(patch.author)
  if (patch.description !== undefined) changes.description = patch.description ?? ''
  if (patch.excerpt !== undefined) changes.excerpt = patch.excerpt ?? ''
  if (patch.cost !== undefined) changes.cost = serializeCost(patch.cost)
  for (const f of TEXT_FIELDS) if (patch[f] !== undefined) changes[f] = textOrNull(patch[f])
  for (const f of EVENT_FLAGS) if (patch[f] !== undefined) changes[f] = patch[f] ?? false
  if (passwordHash !== undefined) changes.password_hash = passwordHash
  let shape = {
    start: current.start_utc,
    end: current.end_utc,
    timezone: current.timezone,
    all_day: current.all_day,
  }
  if (
    patch.start !== undefined ||
    patch.end !== undefined ||
    patch.timezone !== undefined ||
    patch.all_day !== undefined
  ) {
    if (patch.start === null) throw new CalValidationError('start_date', 'cannot be cleared')
    if (patch.end === null) throw new CalValidationError('end_date', 'cannot be cleared')
    const zone = patch.timezone ?? current.timezone
    const allDay = patch.all_day ?? (patch.all_day === null ? false : current.all_day)
    const times = eventTimes(
      patch.start === undefined ? current.start_utc : requireDate(patch.start, 'start_date'),
      patch.end === undefined ? current.end_utc : requireDate(patch.end, 'end_date'),
      zone,
      allDay,
    )
    changes.start_utc = timestampParam(times.start)
    changes.end_utc = timestampParam(times.end)
    changes.timezone = zone
    changes.all_day = allDay
    shape = { start: times.start, end: times.end, timezone: zone, all_day: allDay }
  }
  // The series' rule, checked against the new times before anything is written.
  let recurrence: Recurrence | undefined
  if (patch.recurrence !== undefined && patch.recurrence !== null) {
    recurrence = compileGiven(patch.recurrence, shape)
    changes.recurrence = recurrenceText(recurrence)
    if (current.series_slot === null) changes.series_slot = await nextSeriesSlot(trx)
  } else if (patch.recurrence === null) {
    changes.recurrence = null
    changes.series_slot = null
  } else if (current.recurrence !== null && changes.start_utc !== undefined) {
    recurrence = compileStored(current.recurrence, shape)
  }
  if (patch.venue !== undefined) {
    changes.venue_id = patch.venue === null ? null : await resolveVenue(trx, now, patch.venue)
  }
  if (patch.post_parent !== undefined) {
    if (patch.post_parent !== null) await checkParentEvent(trx, patch.post_parent, id)
    changes.post_parent = patch.post_parent
  }
  const relations = {
    organizers:
      patch.organizers === undefined
        ? undefined
        : await resolveOrganizers(trx, now, patch.organizers ?? []),
    categories:
      patch.categories === undefined
        ? undefined
        : await resolveTermRefs(trx, 'cal_event_category', 'categories', patch.categories ?? []),
    tags:
      patch.tags === undefined
        ? undefined
        : await resolveTermRefs(trx, 'cal_event_tag', 'tags', patch.tags ?? []),
  }
  if (relations.categories || relations.tags) {
    // The terms it unlinks too: their counts change, and one lock statement keeps one order.
    const linked = await trx
      .selectFrom('cal_event_term')
      .select('term_id')
      .where('event_id', '=', id)
      .execute()
    await lockEventTerms(
      trx,
      [
        { field: 'categories', refs: patch.categories ?? [], ids: relations.categories ?? [] },
        { field: 'tags', refs: patch.tags ?? [], ids: relations.tags ?? [] },
      ],
      linked.map((r) => r.term_id),
    )
  }
  const wantsSlug = patch.slug !== undefined && patch.slug !== null && patch.slug !== ''
  const base = wantsSlug ? slugify(patch.slug as string, 'event') : undefined
  const update = () => trx.updateTable('cal_event').set(changes).where('id', '=', id).execute()
  if (base !== undefined && base !== current.slug) {
    // Only a new slug can clash (with a concurrent writer's): retried inside a savepoint.
    await retryOnUniqueViolation(
      trx,
      (c) => c.includes('slug'),
      async () => {
        changes.slug = await allocateSlug(trx, 'cal_event', base, { excludeId: id })
        await update()
      },
    )
  } else {
    await update()
  }
  // An edit of a series' relations reaches the overrides that held its old ones (found first).
  const holders =
    current.recurrence === null
      ? undefined
      : await overridesHolding(
          trx,
          id,
          (['organizers', 'categories', 'tags'] as const).filter(
            (r): r is CarriedRelation => relations[r] !== undefined,
          ),
        )
  await writeRelations(trx, id, relations, true)
  if (current.recurrence !== null) await carryToOverrides(trx, current, changes)
  if (holders) await carryRelations(trx, id, holders, now)
  const dropped =
    current.series_slot === null
      ? []
      : patch.recurrence === null
        ? await dropOverrides(trx, id)
        : recurrence
          ? await dropLostOverrides(trx, id, recurrence)
          : []
  return dropped
}
