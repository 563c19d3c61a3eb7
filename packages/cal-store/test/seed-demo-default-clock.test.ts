import { openDatabase } from '@kcore/db'
import { describe, expect, it } from 'vitest'
import { createCalStore, seedDemoCalendar } from '../src/index.js'

describe('seedDemoCalendar without options', () => {
  it('places the demo events in the weeks after the current time', async () => {
    const database = await openDatabase({})
    try {
      const store = createCalStore(database)
      await store.migrate()
      const before = new Date()
      await seedDemoCalendar(store)
      const events = await store.events.list({ window: { start: before }, limit: 50 })
      expect(events.total).toBe(10)
    } finally {
      await database.close()
    }
  })
})
