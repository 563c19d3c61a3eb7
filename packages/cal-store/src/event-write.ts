import type { Insertable } from 'kysely'
import { CalNotFoundError, CalStaleReadError, CalValidationError } from './errors.js'
import { EVENT_FLAGS, type EventInput, type EventPatch } from './event.js'
import {
  checkParentId,
  eventTimes,
  requireDate,
  requireTitle,
  TEXT_FIELDS,
} from './event-input-check.js'
import { checkEventLinks } from './event-links.js'
import {
  checkParentEvent,
  resolveOrganizers,
  resolveVenue,
  writeRelations,
} from './event-links-write.js'
import { EVENT_COLUMNS, type EventRow, serializeCost } from './event-rows.js'
import { validIds } from './id-list.js'
import { checkAuthor, rejectNul } from './input-guard.js'
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
import { lockEventTerms, resolveTermRefs } from './term-refs.js'
import { textOrNull } from './text-or-null.js'
import { timestampParam } from './timestamp-param.js'
import { retryOnUniqueViolation } from './unique-violation.js'

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
  const times = eventTimes(
    requireDate(input.start, 'start_date'),
    requireDate(input.end, 'end_date'),
    input.timezone ?? 'UTC',
    input.all_day ?? false,
  )
  const { zone } = times
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
    const allDay = patch.all_day ?? (patch.all_day === null ? false : current.all_day)
    const times = eventTimes(
      patch.start === undefined ? current.start_utc : requireDate(patch.start, 'start_date'),
      patch.end === undefined ? current.end_utc : requireDate(patch.end, 'end_date'),
      patch.timezone ?? current.timezone,
      allDay,
    )
    const { zone } = times
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
