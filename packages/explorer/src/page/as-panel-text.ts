import type { AsnOverview, AsnVersionOverview } from './api-types.js'
import { asLabel } from './as-label.js'

/** What the AS panel says, as text: a title, the registry's caveat and term/detail pairs. */
export interface PanelText {
  title: string
  registry: string
  facts: [string, string][]
}

const count = (n: number) => n.toLocaleString('en')

function shell(version: AsnVersionOverview | null): string {
  if (!version) return 'in no stored snapshot'
  const { latest } = version
  return (
    `${latest.shell_index} of ${latest.max_shell_index} on ${latest.date} ` +
    `(${version.snapshots} snapshot${version.snapshots === 1 ? '' : 's'}, ` +
    `${version.first_seen} to ${version.last_seen})`
  )
}

/**
 * The panel of `asn` from its `GET /api/asns/{asn}` answer (`null`: the API knows no such AS).
 * The registry is a dated reference someone else keeps, so the panel says where its rows come
 * from and that some are wrong.
 */
export function panelText(asn: string, overview: AsnOverview | null): PanelText {
  if (!overview) {
    return {
      title: `AS${asn}`,
      registry: 'Not in any stored snapshot nor in the AS registry.',
      facts: [],
    }
  }
  const registry = overview.registry
    ? `Names from ${overview.registry.source}, ${overview.registry.date}; some rows are wrong.`
    : 'No AS registry is imported: no names or address space.'
  const facts: [string, string][] = []
  const space = overview.address_space
  if (space) {
    facts.push([
      'IPv4 space',
      `${count(space.ipv4.addresses)} addresses, ${count(space.ipv4.slash24s)} /24s, ${count(space.ipv4.prefixes)} prefixes`,
    ])
    facts.push([
      'IPv6 space',
      `${count(space.ipv6.slash48s)} /48s, ${count(space.ipv6.prefixes)} prefixes`,
    ])
  } else if (overview.registry) {
    facts.push(['Address space', 'not in the registry'])
  }
  facts.push(['IPv4 shell index', shell(overview.ipv4)])
  facts.push(['IPv6 shell index', shell(overview.ipv6)])
  return { title: asLabel(asn, overview.name), registry, facts }
}
