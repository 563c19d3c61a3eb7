import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addAsns, MAX_ASNS, parseAsnList } from './asn-list.js'

// ASN-like numbers biased to the edges of the API's range and just past it.
const asnNumber = fc.oneof(
  fc.constantFrom(0n, 1n, 4294967295n, 4294967296n, 10n ** 30n),
  fc.bigInt({ min: 0n, max: 2n ** 40n }),
)
const separator = fc.constantFrom(',', ' ', ';', '\n', '\t', ', ', ' ,; ')

describe('parseAsnList', () => {
  it('reads comma, space and newline separated lists with optional AS prefixes', () => {
    expect(parseAsnList('3356, 174 AS15169\nas6939;;0')).toEqual({
      asns: ['3356', '174', '15169', '6939', '0'],
      invalid: [],
    })
  })

  it('keeps the first of duplicates, canonicalises leading zeros, and reports non-numbers', () => {
    expect(parseAsnList('0174 174 AS0174 -1 3.5 AS 1e3 ４２')).toEqual({
      asns: ['174'],
      invalid: ['-1', '3.5', 'AS', '1e3', '４２'],
    })
  })

  it('refuses more than 32 significant digits, whatever the leading zeros', () => {
    const long = `1${'0'.repeat(32)}`
    expect(parseAsnList(`${'9'.repeat(32)} ${long} ${'0'.repeat(50)}7 000`)).toEqual({
      asns: ['9'.repeat(32), '7', '0'],
      invalid: [long],
    })
  })

  it('is empty for empty or blank input', () => {
    expect(parseAsnList('')).toEqual({ asns: [], invalid: [] })
    expect(parseAsnList(' ,;\n ')).toEqual({ asns: [], invalid: [] })
  })

  it('keeps every number exactly, out-of-range ones too (the API judges the range)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(asnNumber, fc.boolean(), fc.nat(3)), { maxLength: 30 }),
        separator,
        (items, sep) => {
          const text = items
            .map(([n, prefix, zeros]) => `${prefix ? 'AS' : ''}${'0'.repeat(zeros)}${n}`)
            .join(sep)
          const expected = [...new Set(items.map(([n]) => n.toString()))]
          expect(parseAsnList(text)).toEqual({ asns: expected, invalid: [] })
        },
      ),
    )
  })
})

describe('addAsns', () => {
  it(`never holds more than ${MAX_ASNS}, never a duplicate, and keeps order`, () => {
    const asn = fc.nat(40).map(String)
    fc.assert(
      fc.property(
        fc.uniqueArray(asn, { maxLength: MAX_ASNS }),
        fc.array(asn, { maxLength: 30 }),
        (current, extra) => {
          const { asns, dropped } = addAsns(current, extra)
          expect(asns.slice(0, current.length)).toEqual(current)
          expect(new Set(asns).size).toBe(asns.length)
          expect(asns.length).toBeLessThanOrEqual(MAX_ASNS)
          for (const a of extra) expect(asns.includes(a) || dropped.includes(a)).toBe(true)
          expect(dropped.every((a) => !asns.includes(a))).toBe(true)
        },
      ),
    )
  })

  it('drops exactly what does not fit', () => {
    const nine = Array.from({ length: 9 }, (_, i) => String(i))
    expect(addAsns(nine, ['100', '8', '101', '102'])).toEqual({
      asns: [...nine, '100'],
      dropped: ['101', '102'],
    })
  })
})
