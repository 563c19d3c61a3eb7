import { describe, expect, it } from 'vitest'
import { createResponseCache } from './response-cache.js'

function setup(maxSize = 1_000, revalidateMs = 100) {
  let time = 0
  let stamp = 'a'
  let stampReads = 0
  const cache = createResponseCache<string>({
    maxSize,
    revalidateMs,
    clock: () => time,
    stamp: async () => {
      stampReads++
      return stamp
    },
  })
  let computed = 0
  const compute = (value: string) => async () => {
    computed++
    return value
  }
  return {
    cache,
    compute,
    computed: () => computed,
    stampReads: () => stampReads,
    advance: (ms: number) => {
      time += ms
    },
    setStamp: (s: string) => {
      stamp = s
    },
  }
}

describe('createResponseCache', () => {
  it('computes once and serves hits until cleared', async () => {
    const t = setup()
    expect(await t.cache.get('k', t.compute('v1'))).toBe('v1')
    expect(await t.cache.get('k', t.compute('v2'))).toBe('v1')
    expect(t.computed()).toBe(1)
    t.cache.clear()
    expect(await t.cache.get('k', t.compute('v3'))).toBe('v3')
  })

  it('re-reads the data stamp only after revalidateMs and drops everything when it changed', async () => {
    const t = setup()
    await t.cache.get('k', t.compute('v1'))
    t.setStamp('b')
    expect(await t.cache.get('k', t.compute('v2'))).toBe('v1') // within the interval: stale allowed
    expect(t.stampReads()).toBe(1)
    t.advance(100)
    expect(await t.cache.get('k', t.compute('v3'))).toBe('v3')
    expect(t.stampReads()).toBe(2)
    t.advance(100)
    expect(await t.cache.get('k', t.compute('v4'))).toBe('v3') // same stamp: kept
  })

  it('shares one computation between concurrent misses', async () => {
    const t = setup()
    let release!: (v: string) => void
    const slow = () =>
      new Promise<string>((resolve) => {
        release = resolve
      })
    const a = t.cache.get('k', slow)
    const b = t.cache.get('k', t.compute('other'))
    await new Promise((r) => setImmediate(r))
    release('shared')
    expect(await a).toBe('shared')
    expect(await b).toBe('shared')
    expect(t.computed()).toBe(0)
  })

  it('never stores a value computed across a clear, nor failures', async () => {
    const t = setup()
    let release!: (v: string) => void
    const pending = t.cache.get(
      'k',
      () =>
        new Promise<string>((resolve) => {
          release = resolve
        }),
    )
    await new Promise((r) => setImmediate(r))
    t.cache.clear()
    release('old')
    expect(await pending).toBe('old')
    expect(await t.cache.get('k', t.compute('new'))).toBe('new')
    await expect(
      t.cache.get('x', async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await t.cache.get('x', t.compute('fine'))).toBe('fine')
  })

  it('evicts least recently used entries past maxSize', async () => {
    const t = setup(10)
    await t.cache.get('a', t.compute('aaaa'))
    await t.cache.get('b', t.compute('bbbb'))
    await t.cache.get('a', t.compute('A')) // touch a
    await t.cache.get('c', t.compute('cccc')) // evicts b
    expect(await t.cache.get('a', t.compute('A2'))).toBe('aaaa')
    expect(await t.cache.get('b', t.compute('B2'))).toBe('B2')
    expect(await t.cache.get('big', t.compute('x'.repeat(11)))).toHaveLength(11)
    expect(await t.cache.get('big', t.compute('small'))).toBe('small')
  })
})
