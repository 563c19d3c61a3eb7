import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_STATE,
  formatViewState,
  panelAsn,
  parseViewState,
  type ViewState,
  versionsOf,
} from './view-state.js'

const date = fc.oneof(
  fc.constantFrom('0001-01-01', '9999-12-31', '2010-02-30', '1998-01-01', 'yesterday', '2010-1-1'),
  fc
    .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
)
const state: fc.Arbitrary<ViewState> = fc
  .record({
    asns: fc.uniqueArray(
      fc.oneof(fc.constantFrom('0', '4294967295', '4294967296'), fc.nat().map(String)),
      {
        maxLength: 10,
      },
    ),
    ipVersion: fc.constantFrom('ipv4' as const, 'ipv6' as const, 'both' as const),
    start: fc.option(date, { nil: null }),
    end: fc.option(date, { nil: null }),
    normalized: fc.boolean(),
    pick: fc.nat(),
    whatIf: fc.option(
      fc.record({
        date,
        ipVersion: fc.constantFrom('ipv4' as const, 'ipv6' as const),
        remove: fc.uniqueArray(fc.nat().map(String), { maxLength: 20 }),
      }),
      { nil: null },
    ),
  })
  .map(({ pick, ...rest }) => ({
    ...rest,
    // The panel's AS is one of the charted ones, or none chosen.
    panel: rest.asns.length && pick % 2 ? (rest.asns[pick % rest.asns.length] as string) : null,
  }))

describe('view state in the URL', () => {
  it('round-trips every state through its query string', () => {
    fc.assert(
      fc.property(state, (s) => {
        expect(parseViewState(formatViewState(s))).toEqual(s)
      }),
    )
  })

  it('writes the documented short form', () => {
    expect(formatViewState({ ...DEFAULT_STATE, asns: ['3356', '174'], start: '2010-01-01' })).toBe(
      '?asns=3356,174&ip_version=ipv4&start=2010-01-01',
    )
  })

  it('reads an empty or foreign query as the default view', () => {
    expect(parseViewState('')).toEqual(DEFAULT_STATE)
    expect(parseViewState('?utm_source=x&ip_version=ipv5&normalized=yes&start=&end=%20')).toEqual(
      DEFAULT_STATE,
    )
  })

  it('keeps at most 10 ASNs from a hand-written link, deduplicated, and ignores junk', () => {
    const many = Array.from({ length: 15 }, (_, i) => 100 + i).join(',')
    const parsed = parseViewState(`?asns=${many},100,x,AS7&ip_version=ipv6`)
    expect(parsed.asns).toEqual(Array.from({ length: 10 }, (_, i) => String(100 + i)))
    expect(parsed.ipVersion).toBe('ipv6')
  })

  it('reads the IPv4 + IPv6 view and the panel AS, falling back when it is not charted', () => {
    expect(parseViewState('?asns=3356,174&ip_version=both&as=AS174')).toMatchObject({
      ipVersion: 'both',
      panel: '174',
    })
    const foreign = parseViewState('?asns=3356&as=13335')
    expect(foreign.panel).toBeNull()
    expect(panelAsn(foreign)).toBe('3356')
    expect(panelAsn({ ...foreign, panel: '174' })).toBe('3356')
    expect(panelAsn(DEFAULT_STATE)).toBeUndefined()
    expect(versionsOf('both')).toEqual(['ipv4', 'ipv6'])
    expect(versionsOf('ipv6')).toEqual(['ipv6'])
  })

  it('reads a what-if question: its date, version and removed ASes', () => {
    expect(parseViewState('?what_if=2015-01-01&remove=AS174,3356,174,x').whatIf).toEqual({
      date: '2015-01-01',
      ipVersion: 'ipv4',
      remove: ['174', '3356'],
    })
    expect(parseViewState('?what_if_ip_version=ipv6&remove=174').whatIf).toBeNull()
    const many = Array.from({ length: 1200 }, (_, i) => i + 1).join(',')
    expect(parseViewState(`?what_if=2015-01-01&remove=${many}`).whatIf?.remove).toHaveLength(1000)
    expect(
      formatViewState({
        ...DEFAULT_STATE,
        whatIf: { date: '2015-01-01', ipVersion: 'ipv6', remove: ['174', '3356'] },
      }),
    ).toBe('?ip_version=ipv4&what_if=2015-01-01&what_if_ip_version=ipv6&remove=174,3356')
  })

  it('bounds an absurdly long date to 32 characters (the API then rejects it)', () => {
    expect(parseViewState(`?start=${'9'.repeat(5000)}`).start).toBe('9'.repeat(32))
  })
})
