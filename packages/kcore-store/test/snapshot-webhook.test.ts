import { testDatabases } from '@kcore/db/testing'
import { webhookSubscriptions } from '@kcore/webhooks'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { KCORE_WEBHOOK_EVENTS } from '../src/index.js'
import { decomposition, openStore, type TestStore } from './helpers.js'

/** The outbox as the sender would read it: type and data, oldest first. */
async function outbox(store: TestStore) {
  const { rows } = await sql<{ type: string; payload: string }>`
    select type, payload::text as payload from webhook_message order by created, id`.execute(
    store.database.db,
  )
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.payload) }))
}

describe.each(testDatabases())('snapshot webhooks on $name', ({ open }) => {
  let store: TestStore
  const snapshot = (date: string, pairs: [number, number][], linkCount = 1) => ({
    ipVersion: 'ipv6' as const,
    date,
    decomposition: decomposition(pairs),
    linkCount,
    source: `${date}.as-rel.txt`,
  })

  beforeAll(async () => {
    store = await openStore(open)
    await webhookSubscriptions(store.database, {
      events: { kcore: KCORE_WEBHOOK_EVENTS },
      allowPrivate: true,
    }).subscribe('kcore', { url: 'http://127.0.0.1:9/', events: [...KCORE_WEBHOOK_EVENTS] })
  })
  afterAll(() => store.database.close())
  beforeEach(async () => {
    await sql`delete from webhook_message`.execute(store.database.db)
  })

  it('enqueues snapshot.added, then snapshot.replaced, with the record the API serves', async () => {
    await store.ingest(snapshot('2024-03-01', [[1, 1]]))
    await store.ingest(
      snapshot(
        '2024-03-01',
        [
          [1, 2],
          [2, 2],
        ],
        3,
      ),
    )
    const served = await (await store.reader()).snapshot('ipv6', '2024-03-01')
    const messages = await outbox(store)
    expect(messages.map((m) => m.type)).toEqual(['snapshot.added', 'snapshot.replaced'])
    expect(messages[0]?.data).toMatchObject({ ip_version: 'ipv6', unique_asns: 1, link_count: 1 })
    expect(messages[1]?.data).toEqual({ ip_version: 'ipv6', ...served })
  })

  it('enqueues nothing when the ingest rolls back', async () => {
    await store.ingest(snapshot('2024-03-02', [[1, 1]]))
    await sql`delete from webhook_message`.execute(store.database.db)
    // The revision bump is the ingest's last statement, after the message is written: failing
    // it rolls the whole transaction back, message included.
    await sql`create or replace function fail_bump() returns trigger language plpgsql as $$
      begin raise exception 'refused'; end $$`.execute(store.database.db)
    await sql`create trigger fail_bump before update on kcore_revision
      for each statement execute function fail_bump()`.execute(store.database.db)
    try {
      await expect(
        store.ingest(
          snapshot('2024-03-02', [
            [5, 1],
            [6, 1],
          ]),
        ),
      ).rejects.toThrow(/refused/)
      await expect(store.ingest(snapshot('2024-03-03', [[5, 1]]))).rejects.toThrow(/refused/)
    } finally {
      await sql`drop trigger fail_bump on kcore_revision`.execute(store.database.db)
    }
    expect(await outbox(store)).toEqual([])
    // What the failed ingest would have replaced is still the stored record.
    expect((await (await store.reader()).snapshot('ipv6', '2024-03-02')).unique_asns).toBe(1)
  })
})
