import { Cron } from 'croner'
import { parseCronSchedule } from './cron-schedule.js'
import { RefreshInProgressError } from './refresh-in-progress-error.js'
import type { SyncResults, SyncRunner } from './sync-runner.js'

/** When the automatic update check runs. */
export interface SchedulerOptions {
  /** False: no automatic checks (a manual {@link Scheduler.tick} still works). */
  enabled: boolean
  /** Five-field cron expression, evaluated in UTC (e.g. `0 6 * * *`). */
  schedule: string
}

/** The schedule used when none is given: enabled, daily at 06:00 UTC (spec). */
export const DEFAULT_SCHEDULER: SchedulerOptions = { enabled: true, schedule: '0 6 * * *' }

/** The scheduler's state (what `GET /api/scheduler/status` reports). */
export interface SchedulerStatus {
  running: boolean
  enabled: boolean
  /** Next automatic check, ISO 8601 UTC; null when disabled (or stopped). */
  next_run: string | null
  schedule: string
}

/** Runs an update check of both IP versions on a cron schedule. */
export interface Scheduler {
  status(): SchedulerStatus
  /** Runs one check now, as a cron tick would; a held lock skips it quietly. */
  tick(): Promise<SyncResults | undefined>
  /** Stops the timer and waits for a running check to finish. */
  close(): Promise<void>
}

/** What {@link createScheduler} needs. */
export interface SchedulerDeps {
  runner: SyncRunner
  now: () => Date
  onError: (error: unknown) => void
}

/**
 * A croner job (UTC, timer unref'd) whose ticks sync both IP versions through the shared
 * runner, in the process that creates it. Every serving process may run one: a tick that finds
 * a check running (here or in another process: the refresh lock) skips quietly, so each
 * snapshot is still fetched once. Failures (provider errors included) go to `onError`.
 *
 * @throws {KcoreConfigError} for an invalid cron expression, enabled or not.
 */
export function createScheduler(options: SchedulerOptions, deps: SchedulerDeps): Scheduler {
  const schedule = parseCronSchedule(options.schedule)
  let closed = false

  async function tick(): Promise<SyncResults | undefined> {
    if (closed) return undefined
    try {
      const results = await deps.runner.run(['ipv4', 'ipv6'])
      const failed = Object.entries(results).filter(([, r]) => r?.error)
      if (failed.length) {
        deps.onError(
          new Error(
            `scheduled update check: ${failed.map(([v, r]) => `${v}: ${r?.error}`).join('; ')}`,
          ),
        )
      }
      return results
    } catch (error) {
      if (!(error instanceof RefreshInProgressError)) deps.onError(error)
      return undefined
    }
  }

  const job = options.enabled
    ? new Cron(schedule, { timezone: 'UTC', unref: true }, () => {
        void tick()
      })
    : undefined

  return {
    status() {
      const next = job && !closed ? job.nextRun(deps.now()) : null
      return {
        running: deps.runner.running,
        enabled: options.enabled,
        next_run: next ? next.toISOString() : null,
        schedule,
      }
    },
    tick,
    async close() {
      closed = true
      job?.stop()
      await deps.runner.idle()
    },
  }
}
