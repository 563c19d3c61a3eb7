import type { NoTables } from '@kcore/db'
import { type Kysely, sql } from 'kysely'
import { enqueueWebhooks, type WebhookEvent } from './enqueue-webhook.js'
import type { WebhookApi, WebhookSubscriptionTable } from './schema.js'

/** What a {@link WebhookSource} read: its events, and the position it read through. */
export interface SourceRead {
  /** Oldest first, each with `at` (when it was committed): only subscriptions made by then get it. */
  events: (WebhookEvent & { at: Date })[]
  /** Where the next read starts. */
  through: number
  /** True when the read stopped at its limit: more may be waiting. */
  more: boolean
}

/**
 * A store's committed changes as webhook events, read after the commit (the writes themselves
 * write nothing for webhooks): the sender follows each source with a cursor in
 * `webhook_cursor`, turns what it reads into messages and moves the cursor in one transaction,
 * so a change becomes its messages exactly once, by one sender at a time, even across
 * processes; one that dies mid-way leaves the cursor where it was.
 *
 * `DB` is the schema the source's transaction is typed with: by default none (`database.db` of
 * `@kcore/db`), which the source widens to its own store's tables (`withTables<Schema>()`).
 */
export interface WebhookSource<DB = NoTables> {
  /** The cursor's name (one per source and database), e.g. `cal`. */
  readonly name: string
  /** Whose subscriptions get the events. */
  readonly api: WebhookApi
  /**
   * The events after position `after` (0: the first it keeps), at most about `limit` changes'
   * worth, read in `trx` (the sender's transaction, which holds the cursor); only the types in
   * `wanted` need `data` (the others may be left out).
   */
  read(
    trx: Kysely<DB>,
    after: number,
    limit: number,
    wanted: ReadonlySet<string>,
  ): Promise<SourceRead>
}

/**
 * One step of following `source`: reads what came after its cursor (at most `limit`), writes
 * the messages and moves the cursor, in one transaction. Another sender holding the cursor
 * makes this a no-op (`SKIP LOCKED`): it is doing the same. Resolves to the read's `more`.
 */
export async function followSource<DB>(
  db: Kysely<DB>,
  source: WebhookSource<DB>,
  limit: number,
): Promise<boolean> {
  // The statements are SQL over the webhook tables rather than Kysely's builder: the transaction
  // is typed with the source's schema, which does not know them.
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ position: string }>`
      select position from webhook_cursor where source = ${source.name}
      for update skip locked`.execute(trx)
    let row = rows[0]
    if (!row) {
      // New: it starts at the beginning of what the source keeps (a change goes only to the
      // subscriptions made by its time, so nobody gets the past). Two senders starting at once:
      // one insert wins, the other finds the cursor held; so does one while another follows it.
      const made = await sql<{ position: string }>`
        insert into webhook_cursor (source, position) values (${source.name}, 0)
        on conflict (source) do nothing returning position`.execute(trx)
      row = made.rows[0]
      if (!row) return false
    }
    const position = Number(row.position)
    const subscribed = await sql<Pick<WebhookSubscriptionTable, 'events'>>`
      select events from webhook_subscription where api = ${source.api}`.execute(trx)
    const wanted = new Set(subscribed.rows.flatMap((s) => s.events))
    const read = await source.read(trx, position, limit, wanted)
    // Only what was wanted when read: a source may leave the others without `data`, and a
    // subscription made since (the insert joins the subscriptions as they are then) must not
    // get such an event.
    const sent = read.events.filter((e) => wanted.has(e.type))
    if (sent.length > 0) await enqueueWebhooks(trx, source.api, sent)
    if (read.through !== position) {
      await sql`update webhook_cursor set position = ${read.through}
        where source = ${source.name}`.execute(trx)
    }
    return read.more
  })
}
