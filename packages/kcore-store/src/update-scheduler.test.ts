import { describe, expect, it } from 'vitest'
import { KcoreConfigError } from './errors.js'
import { RefreshInProgressError } from './refresh-in-progress-error.js'
import type { VersionSyncResult } from './sync-from-provider.js'
import type { SyncResults, SyncRunner } from './sync-runner.js'
import { createScheduler } from './update-scheduler.js'

const ok = (added: string[] = []): VersionSyncResult => ({
  checked: true,
  added,
  latestDate: added.at(-1) ?? null,
  error: null,
  failures: [],
})

/** A runner whose runs do what the test says, one at a time. */
function fakeRunner(run: () => Promise<SyncResults>) {
  let current: Promise<unknown> | undefined
  const calls: string[][] = []
  const runner: SyncRunner = {
    get running() {
      return current !== undefined
    },
    run(versions) {
      calls.push(versions)
      if (current) return Promise.reject(new RefreshInProgressError())
      const p = run().finally(() => {
        current = undefined
      })
      current = p
      return p
    },
    async idle() {
      while (current) await current.catch(() => {})
    },
  }
  return { runner, calls }
}

const now = () => new Date('2026-03-10T07:00:00Z')

describe('createScheduler', () => {
  it('reports the next UTC run of the schedule, or null when disabled', async () => {
    const { runner } = fakeRunner(async () => ({}))
    const daily = createScheduler(
      { enabled: true, schedule: '0 6 * * *' },
      { runner, now, onError: () => {} },
    )
    expect(daily.status()).toEqual({
      running: false,
      enabled: true,
      next_run: '2026-03-11T06:00:00.000Z',
      schedule: '0 6 * * *',
    })
    await daily.close()
    expect(daily.status().next_run).toBeNull()
    const off = createScheduler(
      { enabled: false, schedule: '*/20 * * * *' },
      { runner, now, onError: () => {} },
    )
    expect(off.status()).toEqual({
      running: false,
      enabled: false,
      next_run: null,
      schedule: '*/20 * * * *',
    })
    await off.close()
  })

  it('throws a KcoreConfigError for a bad expression even when disabled', () => {
    const { runner } = fakeRunner(async () => ({}))
    expect(() =>
      createScheduler({ enabled: false, schedule: '* * *' }, { runner, now, onError: () => {} }),
    ).toThrow(KcoreConfigError)
  })

  it('ticks both versions, reports provider errors, and skips quietly when locked', async () => {
    const errors: unknown[] = []
    let answer: () => Promise<SyncResults> = async () => ({ ipv4: ok(['2024-01-01']), ipv6: ok() })
    const { runner, calls } = fakeRunner(() => answer())
    const scheduler = createScheduler(
      { enabled: false, schedule: '0 6 * * *' },
      { runner, now, onError: (e) => errors.push(e) },
    )
    expect(await scheduler.tick()).toMatchObject({ ipv4: { added: ['2024-01-01'] } })
    expect(calls).toEqual([['ipv4', 'ipv6']])
    expect(errors).toEqual([])

    answer = async () => ({
      ipv4: { ...ok(), checked: false, error: 'listing failed' },
      ipv6: ok(),
    })
    await scheduler.tick()
    expect(errors).toHaveLength(1)
    expect(String(errors[0])).toContain('ipv4: listing failed')

    answer = async () => {
      throw new RefreshInProgressError()
    }
    expect(await scheduler.tick()).toBeUndefined()
    expect(errors).toHaveLength(1)

    answer = async () => {
      throw new Error('database gone')
    }
    await scheduler.tick()
    expect(errors).toHaveLength(2)
    await scheduler.close()
  })

  it('close() waits for a running tick, and later ticks do nothing', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const { runner, calls } = fakeRunner(async () => {
      await gate
      return { ipv4: ok(), ipv6: ok() }
    })
    const scheduler = createScheduler(
      { enabled: true, schedule: '0 6 * * *' },
      { runner, now, onError: () => {} },
    )
    const tick = scheduler.tick()
    expect(scheduler.status().running).toBe(true)
    let closed = false
    const closing = scheduler.close().then(() => {
      closed = true
    })
    await Promise.resolve()
    await Promise.resolve()
    expect(closed).toBe(false)
    release()
    await closing
    expect(closed).toBe(true)
    await tick
    expect(await scheduler.tick()).toBeUndefined()
    expect(calls).toHaveLength(1)
  })
})
