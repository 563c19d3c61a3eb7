import { CalNotFoundError } from './errors.js'
import type { CalEvent } from './event.js'
import { createEventsInBulk } from './event-bulk.js'
import { passwordHashOf } from './event-input-check.js'
import { selectEvents, toEvent } from './event-rows.js'
import { insertEvent } from './event-write.js'
import { validIds } from './id-list.js'
import { readEventsById } from './occurrence-read.js'
import { verifyPassword } from './password.js'
import type { EventRepository } from './repositories.js'
import { isEventId } from './series-ids.js'
import { trashEvent, updateEvent } from './series-write.js'
import type { CalDb, StoreContext } from './store-context.js'
import { transact } from './transact.js'

/**
 * The event repository over `ctx`, but for `list`: lists go through a reader
 * (`createCalStore`), so they read at one revision.
 */
export function createEventRepository(ctx: StoreContext): Omit<EventRepository, 'list'> {
  const { db } = ctx

  const getMany = (ids: readonly number[]): Promise<CalEvent[]> => readEventsById(db, ids)

  /**
   * The record a write answers, read inside its transaction: read after the commit, a write
   * committed meanwhile (a split moving the occurrence to a new series) would make a landed
   * write answer 404.
   */
  async function mustGet(trx: CalDb, id: number): Promise<CalEvent> {
    const [event] = await readEventsById(trx, [id])
    if (!event) throw new CalNotFoundError('event', id)
    return event
  }

  return {
    async create(input) {
      const hash = (await passwordHashOf(input.password)) ?? null
      return transact(ctx, async (trx) =>
        mustGet(trx, await insertEvent(trx, ctx.now(), input, hash)),
      )
    },
    createMany: (inputs) => createEventsInBulk(ctx, ctx.now(), inputs),
    async update(id, patch, options) {
      if (!isEventId(id)) throw new CalNotFoundError('event', id)
      const hash = await passwordHashOf(patch.password)
      return transact(ctx, async (trx) => {
        const result = await updateEvent(trx, ctx.now(), id, patch, hash, options)
        const event = await mustGet(trx, result.id)
        return result.dropped.length ? { ...event, dropped_overrides: result.dropped } : event
      })
    },
    async trash(id, options) {
      if (!isEventId(id)) throw new CalNotFoundError('event', id)
      // One statement for a single event, but its count trigger locks the event's terms after
      // the event row, the reverse of a term delete's cascade: retried when chosen as the
      // deadlock victim (`transact`).
      return transact(ctx, (trx) => trashEvent(trx, ctx.now(), id, options?.scope))
    },
    async get(id) {
      return (await getMany([id]))[0]
    },
    async getBySlug(slug) {
      if (slug.includes('\u0000')) return undefined
      const row = await selectEvents(db).where('slug', '=', slug).executeTakeFirst()
      return row && toEvent(row)
    },
    getMany,
    async verifyPassword(id, password) {
      if (validIds([id]).length === 0) return false
      const row = await db
        .selectFrom('cal_event')
        .select('password_hash')
        .where('id', '=', id)
        .executeTakeFirst()
      if (!row) return false
      if (row.password_hash === null) return true
      return verifyPassword(password, row.password_hash)
    },
  }
}
