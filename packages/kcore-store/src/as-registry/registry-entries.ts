import { isAsn } from '../asn.js'
import type { AsAddressSpace } from '../kcore-store-types.js'
import { parseAddress, prefixCount } from './ip-ranges.js'
import { RegistryFileError, type RegistryRecord } from './registry-csv.js'

/** What the registry says of one ASN. */
export interface AsRegistryEntry extends AsAddressSpace {
  asn: number
  /** The organisation name (the one most of its rows give; the first of them on a tie). */
  name: string
}

/** The ranges and names of one ASN while the files are read. */
interface Gathered {
  v4: [bigint, bigint][]
  v6: [bigint, bigint][]
  names: Map<string, number>
}

/**
 * Gathers records of every file into one entry per ASN. Duplicated and overlapping ranges of an
 * ASN count once. A record whose addresses or ASN are not valid throws {@link RegistryFileError}
 * with its line: the import is refused whole rather than stored with holes nobody sees.
 */
export class RegistryGatherer {
  readonly #byAsn = new Map<number, Gathered>()

  /** Adds one file's records; `numericVersion` reads its decimal addresses as that version. */
  add(records: Iterable<RegistryRecord>, file: string, numericVersion: 4 | 6 | undefined): void {
    for (const { line, fields } of records) {
      const [startText, endText, asnText, rawName] = fields as [string, string, string, string]
      const start = parseAddress(startText.trim(), numericVersion)
      const end = parseAddress(endText.trim(), numericVersion)
      if (!start || !end || start.version !== end.version)
        throw new RegistryFileError(file, line, `not an address range: ${startText}, ${endText}`)
      if (start.value > end.value)
        throw new RegistryFileError(
          file,
          line,
          `range starts after it ends: ${startText}, ${endText}`,
        )
      const asnField = asnText.trim()
      const asn = /^\d{1,10}$/.test(asnField) ? Number(asnField) : Number.NaN
      if (!isAsn(asn)) throw new RegistryFileError(file, line, `not an ASN: ${asnText}`)
      const gathered = this.#byAsn.get(asn) ?? { v4: [], v6: [], names: new Map() }
      this.#byAsn.set(asn, gathered)
      ;(start.version === 4 ? gathered.v4 : gathered.v6).push([start.value, end.value])
      const name = cleanName(rawName)
      if (name) gathered.names.set(name, (gathered.names.get(name) ?? 0) + 1)
    }
  }

  /** ASNs gathered so far. */
  get size(): number {
    return this.#byAsn.size
  }

  /** One entry per ASN, ascending. */
  entries(): AsRegistryEntry[] {
    const out: AsRegistryEntry[] = []
    for (const [asn, { v4, v6, names }] of [...this.#byAsn].sort((a, b) => a[0] - b[0])) {
      let name = ''
      let most = 0
      for (const [candidate, count] of names) if (count > most) [name, most] = [candidate, count]
      const four = space(v4, 32, 8n)
      const six = space(v6, 128, 80n)
      out.push({
        asn,
        name,
        ipv4: { addresses: Number(four.addresses), slash24s: four.blocks, prefixes: four.prefixes },
        ipv6: { slash48s: six.blocks, prefixes: six.prefixes },
      })
    }
    return out
  }
}

/**
 * A name as stored: surrounding white space trimmed, NUL (which PostgreSQL text cannot hold)
 * dropped; every other character, quotes, line breaks, right-to-left and control characters
 * included, is kept as the file gives it (the answers escape it).
 */
function cleanName(raw: string): string {
  return raw.replaceAll('\u0000', '').trim()
}

/** The merged size of `ranges` of a `bits`-bit space, in addresses, blocks of `shift` bits and prefixes. */
function space(ranges: [bigint, bigint][], bits: number, shift: bigint) {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  let addresses = 0n
  let blocks = 0n
  let prefixes = 0
  let lastBlock = -1n
  let current: [bigint, bigint] | undefined
  const close = ([s, e]: [bigint, bigint]) => {
    addresses += e - s + 1n
    const first = s >> shift
    const last = e >> shift
    blocks += last - (first > lastBlock ? first : lastBlock + 1n) + 1n
    lastBlock = last
    prefixes += prefixCount(s, e, bits)
  }
  for (const [s, e] of ranges) {
    if (current && s <= current[1] + 1n) {
      if (e > current[1]) current[1] = e
    } else {
      if (current) close(current)
      current = [s, e]
    }
  }
  if (current) close(current)
  return { addresses, blocks: Number(blocks), prefixes }
}
