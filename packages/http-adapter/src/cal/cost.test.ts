import { describe, expect, it } from 'vitest'
import { parseAmount, renderCost } from './cost.js'

describe('renderCost', () => {
  it('never takes a currency code from Object.prototype', () => {
    for (const symbol of ['constructor', 'toString', '__proto__'])
      expect(renderCost([`${symbol} 5`]).cost_details.currency_code, symbol).toBe('')
  })

  it('reads a postfix symbol and a decimal comma', () => {
    expect(renderCost(['25,55€'])).toEqual({
      cost: '25.55€',
      cost_details: {
        currency_symbol: '€',
        currency_code: 'EUR',
        currency_position: 'postfix',
        values: ['25.55'],
      },
    })
  })

  it('shows a range with Free for zero, values ascending', () => {
    const r = renderCost(['30$', '0$', '20$'])
    expect(r.cost).toBe('Free – 30$')
    expect(r.cost_details.values).toEqual(['0', '20', '30'])
    expect(r.cost_details.currency_position).toBe('postfix')
  })

  it('reads a prefix symbol', () => {
    const r = renderCost(['$23'])
    expect(r.cost).toBe('$23')
    expect(r.cost_details).toMatchObject({
      currency_symbol: '$',
      currency_position: 'prefix',
      currency_code: 'USD',
    })
  })

  it('reads two amounts in one string and "Free"', () => {
    expect(renderCost(['$10 - $20']).cost).toBe('$10 – $20')
    expect(renderCost(['Free']).cost).toBe('Free')
    expect(renderCost(['10,20']).cost_details.values).toEqual(['10.2'])
  })

  it('is empty without a cost and keeps text without numbers', () => {
    expect(renderCost(null)).toEqual({
      cost: '',
      cost_details: {
        currency_symbol: '',
        currency_code: '',
        currency_position: 'prefix',
        values: [],
      },
    })
    expect(renderCost(['Donation']).cost).toBe('Donation')
  })
})

describe('parseAmount', () => {
  it('handles decimal marks and thousands groups', () => {
    expect(parseAmount('25,55')).toBe(25.55)
    expect(parseAmount('25.55')).toBe(25.55)
    expect(parseAmount('1,000')).toBe(1000)
    expect(parseAmount('1.234,5')).toBe(1234.5)
    expect(parseAmount('1,234.5')).toBe(1234.5)
    expect(parseAmount('abc')).toBeUndefined()
  })
})
