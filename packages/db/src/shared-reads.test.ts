import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sharedReads } from './shared-reads.js'

/** A read whose answers the test releases: each read answers the value current when it STARTED. */
function controlledReads() {
  let value = 0
  const pending: { resolve: () => void }[] = []
  let started = 0
  const read = () => {
    started++
    const seen = value
    return new Promise<number>((resolve) => pending.push({ resolve: () => resolve(seen) }))
  }
  return {
    read,
    bump: () => value++,
    get value() {
      return value
    },
    get started() {
      return started
    },
    releaseOne: () => pending.shift()?.resolve(),
    get pending() {
      return pending.length
    },
  }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('sharedReads', () => {
  it('never answers a caller with a read sent before it asked; concurrent callers share reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('call', 'bump', 'release'), { minLength: 1, maxLength: 60 }),
        async (script) => {
          const source = controlledReads()
          const shared = sharedReads(source.read)
          const answers: Promise<void>[] = []
          let calls = 0
          for (const step of script) {
            if (step === 'bump') source.bump()
            else if (step === 'release') source.releaseOne()
            else {
              calls++
              const floor = source.value
              answers.push(shared().then((got) => expect(got).toBeGreaterThanOrEqual(floor)))
            }
            await tick()
          }
          while (source.pending) {
            source.releaseOne()
            await tick()
          }
          await Promise.all(answers)
          // One read on the wire and at most one more waiting, whatever the number of callers.
          expect(source.started).toBeLessThanOrEqual(Math.max(calls, 0))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('makes ten concurrent callers cost two reads', async () => {
    const source = controlledReads()
    const shared = sharedReads(source.read)
    const first = shared()
    const rest = Array.from({ length: 9 }, () => shared())
    expect(source.started).toBe(1)
    source.bump()
    source.releaseOne()
    expect(await first).toBe(0)
    await tick()
    expect(source.started).toBe(2)
    source.releaseOne()
    expect(await Promise.all(rest)).toEqual(Array(9).fill(1))
  })

  it('passes a failed read to its callers and reads afresh afterwards', async () => {
    let fail = true
    const shared = sharedReads(async () => {
      if (fail) throw new Error('down')
      return 'ok'
    })
    await expect(Promise.all([shared(), shared()])).rejects.toThrow('down')
    fail = false
    await expect(shared()).resolves.toBe('ok')
  })
})
