import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { asLabel, displayName } from './as-label.js'

describe('asLabel', () => {
  it('puts the name after the number, and only the number without one', () => {
    expect(asLabel('13335', 'Cloudflare, Inc.')).toBe('AS13335 Cloudflare, Inc.')
    expect(asLabel('64512', null)).toBe('AS64512')
    expect(asLabel('64512', undefined)).toBe('AS64512')
    expect(asLabel('64512', ' \n\t ')).toBe('AS64512')
  })

  it('keeps markup as text and isolates a right-to-left name', () => {
    expect(asLabel('1', '<script>alert(1)</script>')).toBe('AS1 <script>alert(1)</script>')
    expect(asLabel('2', 'شركة "اتصالات"')).toBe('AS2 \u2068شركة "اتصالات"\u2069')
    expect(asLabel('3', 'עברית')).toBe('AS3 \u2068עברית\u2069')
  })

  it('drops direction overrides and turns controls and newlines into spaces', () => {
    expect(displayName('\u202eevil\u202c name')).toBe('evil name')
    expect(displayName('a\r\nb\u0000c\u2028d')).toBe('a b c d')
  })

  it('never lets a name hold a control or a direction override, nor hide the number', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.nat(), (name, asn) => {
        const label = asLabel(String(asn), name)
        expect(label.startsWith(`AS${asn}`)).toBe(true)
        expect(label).not.toMatch(/[\p{Cc}\u202a-\u202e\u2028\u2029]/u)
        // Isolates only ever come as the one balanced pair around the name.
        const isolates = label.match(/[\u2066-\u2069]/g) ?? []
        expect(isolates.join('')).toMatch(/^(\u2068\u2069)?$/)
      }),
    )
  })
})
