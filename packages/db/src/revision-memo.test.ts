import { describe, expect, it } from 'vitest'
import { createRevisionMemo } from './revision-memo.js'

/** A string with the size a memo weighs it by. */
const sized = (text: string) => ({ text, byteLength: text.length })

function setup(maxSize = 1_000) {
  const cache = createRevisionMemo({ maxBytes: maxSize })
  let computed = 0
  const compute = (value: string) => async () => {
    computed++
    return sized(value)
  }
  // Reads the kept text, so assertions compare strings.
  const get = async (
    revision: string,
    key: string,
    value: () => Promise<{ text: string; byteLength: number }>,
  ) => (await cache.get(revision, key, value)).text
  return { cache: { get }, compute, computed: () => computed }
}

describe('createRevisionMemo', () => {
  it('computes once per revision and serves hits until a newer revision is read', async () => {
    const t = setup()
    expect(await t.cache.get('1', 'k', t.compute('v1'))).toBe('v1')
    expect(await t.cache.get('1', 'k', t.compute('v2'))).toBe('v1')
    expect(t.computed()).toBe(1)
    expect(await t.cache.get('2', 'k', t.compute('v3'))).toBe('v3')
    expect(await t.cache.get('2', 'k', t.compute('v4'))).toBe('v3')
    // Revisions compare as numbers, not text ('10' > '9').
    expect(await t.cache.get('10', 'k', t.compute('v10'))).toBe('v10')
    expect(await t.cache.get('9', 'k', t.compute('old'))).toBe('old')
    expect(await t.cache.get('10', 'k', t.compute('v11'))).toBe('v10')
  })

  it('shares one computation between concurrent misses', async () => {
    const t = setup()
    let release!: (v: string) => void
    const slow = () =>
      new Promise<string>((resolve) => {
        release = resolve
      }).then(sized)
    const a = t.cache.get('1', 'k', slow)
    const b = t.cache.get('1', 'k', t.compute('other'))
    await new Promise((r) => setImmediate(r))
    release('shared')
    expect(await a).toBe('shared')
    expect(await b).toBe('shared')
    expect(t.computed()).toBe(0)
  })

  it('never stores a value computed at a revision overtaken meanwhile, nor failures', async () => {
    const t = setup()
    let release!: (v: string) => void
    const pending = t.cache.get('1', 'k', () =>
      new Promise<string>((resolve) => {
        release = resolve
      }).then(sized),
    )
    await new Promise((r) => setImmediate(r))
    expect(await t.cache.get('2', 'other', t.compute('x'))).toBe('x')
    release('old')
    expect(await pending).toBe('old')
    expect(await t.cache.get('2', 'k', t.compute('new'))).toBe('new')
    await expect(
      t.cache.get('2', 'x', async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(await t.cache.get('2', 'x', t.compute('fine'))).toBe('fine')
  })

  it('evicts least recently used entries past maxSize', async () => {
    const t = setup(10)
    await t.cache.get('1', 'a', t.compute('aaaa'))
    await t.cache.get('1', 'b', t.compute('bbbb'))
    await t.cache.get('1', 'a', t.compute('A')) // touch a
    await t.cache.get('1', 'c', t.compute('cccc')) // evicts b
    expect(await t.cache.get('1', 'a', t.compute('A2'))).toBe('aaaa')
    expect(await t.cache.get('1', 'b', t.compute('B2'))).toBe('B2')
    expect(await t.cache.get('1', 'big', t.compute('x'.repeat(11)))).toHaveLength(11)
    expect(await t.cache.get('1', 'big', t.compute('small'))).toBe('small')
  })
})
