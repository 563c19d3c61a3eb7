const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

/**
 * Waits before each retry, after the first attempt fails: the schedule the Standard Webhooks
 * specification suggests. Eight attempts over 27 h 35 min; after the last, the message is
 * `failed`. A receiver that is down for an hour still gets every message (at the 2 h retry).
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]

/**
 * When to try again after `attempts` attempts all failed, or `undefined` when the schedule is
 * spent and the message is given up.
 */
export function nextAttemptAt(
  attempts: number,
  failedAt: Date,
  delaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): Date | undefined {
  const delay = delaysMs[attempts - 1]
  return delay === undefined ? undefined : new Date(failedAt.getTime() + delay)
}
