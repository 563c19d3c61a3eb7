import { type Kysely, sql } from 'kysely'
import type { ClaimedMessage } from './claim-messages.js'
import { nextAttemptAt } from './retry-schedule.js'
import type { WebhookTables } from './schema.js'
import type { AttemptOutcome } from './send-attempt.js'

/**
 * Logs one attempt in `webhook_delivery` and moves its message on (delivered, due again by the
 * retry schedule, or failed), in one transaction, only while the message's lease is still this
 * sender's: past it, another sender owns the message. An interrupted attempt only frees the
 * message for the next sender, without counting.
 */
export async function recordAttempt(
  db: Kysely<WebhookTables>,
  message: ClaimedMessage,
  outcome: AttemptOutcome,
  retryDelaysMs: readonly number[],
): Promise<void> {
  const { attemptedAt, status, error, durationMs, delivered } = outcome
  await db.transaction().execute(async (trx) => {
    // The message may be gone (its subscription deleted meanwhile): log only if it is not.
    await sql`
      insert into webhook_delivery
        (subscription_id, message_id, attempted_at, status, error, duration_ms)
      select ${message.subscriptionId}, ${message.id}, ${attemptedAt}, ${status}, ${error},
        ${durationMs}
      where exists (select 1 from webhook_message where id = ${message.id})`.execute(trx)
    const update = trx
      .updateTable('webhook_message')
      .where('id', '=', message.id)
      .where('lease', '=', message.lease)
    if (outcome.interrupted) {
      // Free it for the next sender now rather than after the lease.
      await update.set({ lease: null, locked_until: null }).execute()
      return
    }
    const attempts = message.attempts + 1
    const retryAt = delivered ? undefined : nextAttemptAt(attempts, attemptedAt, retryDelaysMs)
    await update
      .set({
        attempts,
        lease: null,
        locked_until: null,
        ...(delivered
          ? { status: 'delivered', finished_at: attemptedAt }
          : retryAt
            ? { next_attempt_at: retryAt }
            : { status: 'failed', finished_at: attemptedAt }),
      })
      .execute()
  })
}
