/** The `cost_details` object of an event. */
export interface CostDetails {
  currency_symbol: string
  currency_code: string
  currency_position: 'prefix' | 'postfix'
  /** The amounts as numeric strings, ascending, without duplicates. */
  values: string[]
}

/** What a stored cost renders as. */
export interface RenderedCost {
  cost: string
  cost_details: CostDetails
}

/**
 * One amount: digits with `.`/`,` marks, an optional exponent (`1e3`, `1.5E-2`: one amount,
 * never two), and an optional sign: `-` or U+2212 right before the digits, where no digit or
 * mark precedes it (`-5$`, `$-5`; the dash of `10-20` joins a range).
 */
const NUMBER = /(?<![\d.,])([-\u2212]?)(\d[\d.,]*(?:[eE][+-]?\d+)?)/g
const FREE = /^free$/i
// A Map, not an object literal: a client's cost text must never reach Object.prototype.
const CODES = new Map([
  ['$', 'USD'],
  ['US$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₽', 'RUB'],
  ['₺', 'TRY'],
  ['₪', 'ILS'],
  ['CHF', 'CHF'],
  ['R$', 'BRL'],
  ['A$', 'AUD'],
  ['C$', 'CAD'],
  ['kr', 'SEK'],
  ['zł', 'PLN'],
])

/**
 * Reads one amount: `25,55` and `25.55` are both 25.55; when both separators appear the last
 * one is the decimal mark; a single `,` or `.` followed by exactly three digits groups
 * thousands (`1,000`). Returns `undefined` for what is not a number.
 */
export function parseAmount(text: string): number | undefined {
  const exponent = /[eE]([+-]?\d+)$/.exec(text)
  let digits = (exponent ? text.slice(0, exponent.index) : text).replace(/[.,]+$/, '')
  const lastComma = digits.lastIndexOf(',')
  const lastDot = digits.lastIndexOf('.')
  if (lastComma >= 0 && lastDot >= 0) {
    const decimal = lastComma > lastDot ? ',' : '.'
    const group = decimal === ',' ? '.' : ','
    digits = digits.split(group).join('').replace(decimal, '.')
  } else {
    const sep = lastComma >= 0 ? ',' : lastDot >= 0 ? '.' : undefined
    if (sep) {
      const pieces = digits.split(sep)
      const grouped =
        pieces.length > 2 || (pieces.length === 2 && pieces[1]?.length === 3 && sep === ',')
      digits = grouped ? pieces.join('') : pieces.join('.')
    }
  }
  if (!/^\d+(\.\d+)?$/.test(digits)) return undefined
  // Too large for a number (1e400, 400 nines): no amount rather than Infinity.
  const value = Number(exponent ? `${digits}e${exponent[1]}` : digits)
  return Number.isFinite(value) ? value : undefined
}

/** A number as a plain numeric string (`25.55`, `30`, `-5`; never `-0`). */
const numeric = (value: number) => String(Number(value.toFixed(6)) || 0)

/**
 * Renders a stored cost (the strings the client wrote): the currency symbol is the non-numeric
 * part and its side gives the position; `values` are every amount, ascending; `cost` shows one
 * value or `min – max`, with 0 shown as `Free`. Texts without any number (other than "Free")
 * are shown as written when no amount exists at all.
 */
export function renderCost(input: readonly string[] | null | undefined): RenderedCost {
  const texts = (input ?? []).map((t) => t.trim()).filter((t) => t !== '')
  const amounts = new Set<number>()
  let symbol = ''
  let position: 'prefix' | 'postfix' = 'prefix'
  for (const text of texts) {
    if (FREE.test(text)) {
      amounts.add(0)
      continue
    }
    const matches = [...text.matchAll(NUMBER)]
    for (const match of matches) {
      const value = parseAmount(match[2] ?? '')
      // Rounded as shown, so -0.0000001 is Free like 0, and no value shows twice.
      if (value !== undefined) amounts.add(Number(numeric(match[1] ? -value : value)))
    }
    const first = matches[0]
    if (!symbol && first) {
      const before = text.slice(0, first.index).trim()
      const last = matches[matches.length - 1] ?? first
      const after = text.slice((last.index ?? 0) + last[0].length).trim()
      const clean = (s: string) => s.replace(/^[\s\-–]+|[\s\-–]+$/g, '')
      if (clean(before)) {
        symbol = clean(before)
        position = 'prefix'
      } else if (clean(after)) {
        symbol = clean(after)
        position = 'postfix'
      }
    }
  }
  const values = [...amounts].sort((a, b) => a - b)
  const code = CODES.get(symbol) ?? (/^[A-Z]{3}$/.test(symbol) ? symbol : '')
  const show = (value: number) =>
    value === 0
      ? 'Free'
      : position === 'prefix'
        ? `${symbol}${numeric(value)}`
        : `${numeric(value)}${symbol}`
  let cost = ''
  const min = values[0]
  const max = values[values.length - 1]
  if (min !== undefined && max !== undefined) {
    cost = min === max ? show(min) : `${show(min)} – ${show(max)}`
  } else {
    cost = texts.join(', ')
  }
  return {
    cost,
    cost_details: {
      currency_symbol: symbol,
      currency_code: code,
      currency_position: position,
      values: values.map(numeric),
    },
  }
}
