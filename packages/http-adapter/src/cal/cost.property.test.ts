import { propertyRuns } from '@kcore/db/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderCost } from './cost.js'

/** A plain numeric string as `cost_details.values` writes one. */
const numeric = (value: number) => String(Number(value.toFixed(6)))
const SYMBOLS = ['$', '€', '£', 'CHF', 'USD', 'kr', 'zł', 'R$']

describe('renderCost on hostile text', () => {
  it('keeps the sign of a negative amount', () => {
    expect(renderCost(['-5$'])).toMatchObject({ cost: '-5$', cost_details: { values: ['-5'] } })
    expect(renderCost(['$-5']).cost).toBe('$-5')
    expect(renderCost(['−2,50 €']).cost_details.values).toEqual(['-2.5'])
    // A dash between two amounts is a range, not a sign.
    expect(renderCost(['10-20$']).cost_details.values).toEqual(['10', '20'])
    expect(renderCost(['$10 - $20']).cost).toBe('$10 – $20')
  })

  it('reads an exponent as part of its amount, never as a second amount', () => {
    // 1e400 is no finite number: no amount, shown as written (not `1$ – 400$`).
    expect(renderCost(['1e400$'])).toMatchObject({ cost: '1e400$', cost_details: { values: [] } })
    expect(renderCost(['2e3$'])).toMatchObject({
      cost: '2000$',
      cost_details: { values: ['2000'] },
    })
    expect(renderCost(['1.5E-2€']).cost_details.values).toEqual(['0.015'])
    // A huge amount without exponent is no amount either.
    expect(renderCost([`${'9'.repeat(400)}$`]).cost_details.values).toEqual([])
  })

  it('renders any signed amount with any symbol on either side (property)', () => {
    const amount = fc.oneof(
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.integer({ min: -99_999_999, max: 99_999_999 }).map((n) => n / 100),
      fc.constantFrom(0, -0, 1e-6, -1e-6, 999.999),
    )
    fc.assert(
      fc.property(amount, fc.constantFrom(...SYMBOLS), fc.boolean(), (value, symbol, prefix) => {
        // Written as people write amounts: no grouping, a dot as the decimal mark.
        const written = String(Math.abs(value) < 1e-3 && value !== 0 ? value.toFixed(6) : value)
        const text = prefix ? `${symbol}${written}` : `${written}${symbol}`
        const r = renderCost([text])
        const n = Number(written)
        expect(r.cost_details.values, text).toEqual([numeric(n === 0 ? 0 : n)])
        const shown =
          n === 0 ? 'Free' : prefix ? `${symbol}${numeric(n)}` : `${numeric(n)}${symbol}`
        expect(r.cost, text).toBe(shown)
        expect(r.cost_details.currency_symbol).toBe(symbol)
        expect(r.cost_details.currency_position).toBe(prefix ? 'prefix' : 'postfix')
      }),
      { numRuns: propertyRuns(2000, 200) },
    )
  })

  it('reads exponent forms as one amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: -400, max: 400 }),
        fc.constantFrom('e', 'E'),
        (mantissa, exponent, e) => {
          const text = `${mantissa}${e}${exponent}$`
          const value = Number(`${mantissa}e${exponent}`)
          const r = renderCost([text])
          if (!Number.isFinite(value)) {
            expect(r.cost_details.values, text).toEqual([])
            expect(r.cost).toBe(text)
          } else {
            expect(r.cost_details.values.length, text).toBeLessThanOrEqual(1)
            if (Number(value.toFixed(6)) !== 0)
              expect(r.cost_details.values, text).toEqual([numeric(value)])
          }
        },
      ),
      { numRuns: propertyRuns(2000, 200) },
    )
  })

  it('never throws and only ever lists finite values, ascending (property)', () => {
    const hostile = fc.string({
      unit: fc.constantFrom(...'0123456789.,-−–eE+ $€£\u0000\u202e٣'.split(''), 'Free', 'NaN'),
      maxLength: 40,
    })
    fc.assert(
      fc.property(fc.array(hostile, { maxLength: 4 }), (texts) => {
        const r = renderCost(texts)
        expect(typeof r.cost).toBe('string')
        const values = r.cost_details.values.map(Number)
        for (const v of values) expect(Number.isFinite(v), r.cost_details.values.join()).toBe(true)
        expect(values).toEqual([...values].sort((a, b) => a - b))
        expect(new Set(values).size).toBe(values.length)
        for (const v of r.cost_details.values) expect(v).toBe(numeric(Number(v)))
      }),
      { numRuns: propertyRuns(4000, 300) },
    )
  })
})
