import { describe, expect, it } from 'vitest'
import type { AsnOverview } from './api-types.js'
import { panelText } from './as-panel-text.js'

const latest = {
  date: '2022-06-01',
  shell_index: 40,
  max_shell_index: 98,
  normalized_shell_index: 40 / 98,
}
const cloudflare: AsnOverview = {
  asn: 13335,
  ipv4: { first_seen: '2010-01-01', last_seen: '2022-06-01', snapshots: 4, latest },
  ipv6: null,
  name: 'Cloudflare, Inc.',
  address_space: {
    ipv4: { addresses: 1_769_472, slash24s: 6912, prefixes: 1 },
    ipv6: { slash48s: 65_536, prefixes: 2 },
  },
  registry: { source: 'ip-location-db asn', date: '2026-06-01' },
}

describe('panelText', () => {
  it('names the AS, dates its registry, and gives both spaces and both shells', () => {
    expect(panelText('13335', cloudflare)).toEqual({
      title: 'AS13335 Cloudflare, Inc.',
      registry: 'Names from ip-location-db asn, 2026-06-01; some rows are wrong.',
      facts: [
        ['IPv4 space', '1,769,472 addresses, 6,912 /24s, 1 prefixes'],
        ['IPv6 space', '65,536 /48s, 2 prefixes'],
        ['IPv4 shell index', '40 of 98 on 2022-06-01 (4 snapshots, 2010-01-01 to 2022-06-01)'],
        ['IPv6 shell index', 'in no stored snapshot'],
      ],
    })
  })

  it('says when there is no registry, no entry, or no such AS', () => {
    const bare = { ...cloudflare, name: null, address_space: null, registry: null }
    expect(panelText('13335', bare).title).toBe('AS13335')
    expect(panelText('13335', bare).registry).toMatch(/No AS registry/)
    const unlisted = { ...cloudflare, name: null, address_space: null }
    expect(panelText('13335', unlisted).facts[0]).toEqual(['Address space', 'not in the registry'])
    expect(panelText('64512', null)).toMatchObject({ title: 'AS64512', facts: [] })
    // An older service without the registry members.
    const old: AsnOverview = { asn: 1, ipv4: null, ipv6: null }
    expect(panelText('1', old).facts).toHaveLength(2)
  })
})
