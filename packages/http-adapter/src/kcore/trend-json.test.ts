import type { TrendPoint } from '@kcore/store'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonBytes } from './trend-json.js'

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

const point = fc
  .record({
    date: fc.constantFrom('1986-01-01', '2004-02-29', '9999-12-31', '0001-01-01'),
    shell: fc.oneof(fc.constantFrom(0, 1, 254, 255, 65535), fc.nat()),
    max: fc.oneof(fc.constantFrom(0, 1, 3, 7, 255), fc.nat()),
    frozen: fc.boolean(),
  })
  .map(({ date, shell, max, frozen }) => {
    const p: TrendPoint = {
      date,
      shell_index: shell,
      max_shell_index: max,
      normalized_shell_index: max > 0 ? shell / max : 0,
    }
    return frozen ? Object.freeze(p) : p
  })

describe('trend JSON', () => {
  it('writes exactly what JSON.stringify writes, shared points reused across calls', () => {
    const shared = fc.sample(point, 20)
    fc.assert(
      fc.property(
        fc.array(fc.oneof(point, fc.constantFrom(...shared)), { maxLength: 40 }),
        (points) => {
          const json = () => decode(new JsonBytes().points(points).bytes())
          expect(json()).toBe(JSON.stringify(points))
          // Again: the memoized bytes of frozen points must still be theirs.
          expect(json()).toBe(JSON.stringify(points))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('writes objects and records in JSON.stringify order (integer keys first, ascending)', () => {
    const asn = fc.oneof(fc.constantFrom(0, 1, 3356, 4294967294, 4294967295), fc.nat())
    fc.assert(
      fc.property(fc.array(asn, { minLength: 1, maxLength: 12 }), (asns) => {
        const record: Record<string, TrendPoint[]> = {}
        const plain: Record<string, unknown> = {}
        for (const a of asns) {
          const value = fc.sample(fc.array(point, { maxLength: 3 }), { numRuns: 1, seed: a })[0]!
          record[String(a)] = value
          plain[String(a)] = value
        }
        const head = { asns, ip_version: 'ipv4', date_range: { start: null, end: '2024-01-01' } }
        const bytes = new JsonBytes()
          .objectWith(head, 'trend_data', (out) =>
            out.record(record, (member, points) => member.points(points)),
          )
          .bytes()
        expect(decode(bytes)).toBe(JSON.stringify({ ...head, trend_data: plain }))
      }),
      { numRuns: 500 },
    )
  })

  it('measures and copies non-ASCII text as UTF-8 bytes', () => {
    const text = { note: 'Zürich – 東京 😀' }
    expect(decode(new JsonBytes().objectWith(text, 'k', (out) => out.text('[]')).bytes())).toBe(
      JSON.stringify({ ...text, k: [] }),
    )
  })
})
