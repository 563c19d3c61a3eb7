import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { pickFields } from './sparse-fields.js'

const record = {
  id: 7,
  title: 'Jazz',
  venue: { id: 3, venue: 'Hall', city: 'Gent' },
  categories: [
    { id: 1, name: 'Music', slug: 'music' },
    { id: 2, name: 'Jazz', slug: 'jazz' },
  ],
  cost: null,
}

describe('pickFields', () => {
  it('keeps only the named fields, in the record order, unknown names skipped', () => {
    expect(pickFields(record, ['title', 'id', 'nope'])).toEqual({ id: 7, title: 'Jazz' })
    expect(Object.keys(pickFields(record, ['title', 'id']))).toEqual(['id', 'title'])
    expect(pickFields(record, ['cost'])).toEqual({ cost: null })
    expect(pickFields(record, ['nope'])).toEqual({})
  })

  it('reaches into objects and arrays of objects with dots; the whole field wins', () => {
    expect(pickFields(record, ['venue.venue', 'categories.slug'])).toEqual({
      venue: { venue: 'Hall' },
      categories: [{ slug: 'music' }, { slug: 'jazz' }],
    })
    expect(pickFields(record, ['venue.city', 'venue'])).toEqual({ venue: record.venue })
    expect(pickFields(record, ['title.length'])).toEqual({ title: 'Jazz' })
  })

  it('keeps the record whole without fields, and never adds a key', () => {
    expect(pickFields(record, undefined)).toBe(record)
    expect(pickFields(record, [])).toBe(record)
    const keys = fc.constantFrom(
      'id',
      'title',
      'venue',
      'venue.city',
      'categories.name',
      'x',
      '',
      '.',
      'a.b.c',
    )
    fc.assert(
      fc.property(fc.array(keys, { maxLength: 6 }), (fields) => {
        const out = pickFields(record, fields) as Record<string, unknown>
        for (const key of Object.keys(out)) expect(Object.keys(record)).toContain(key)
        for (const f of fields) {
          if (f in record) expect(out[f]).toEqual(record[f as keyof typeof record])
        }
      }),
    )
  })
})
