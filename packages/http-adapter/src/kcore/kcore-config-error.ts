/** Thrown by {@link createKcoreApi} for a configuration it cannot run with (e.g. a bad cron). */
export class KcoreConfigError extends Error {
  override readonly name = 'KcoreConfigError'
}
