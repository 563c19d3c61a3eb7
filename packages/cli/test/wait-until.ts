import { setTimeout as delay } from 'node:timers/promises'

/**
 * Polls `check` until it returns something other than `undefined`/`false`, for state that only
 * another process or the database can change (nothing to await there). Rejects after
 * `timeoutMs` with `what` in the message.
 */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  { timeoutMs = 60_000, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await delay(everyMs)
  }
}
