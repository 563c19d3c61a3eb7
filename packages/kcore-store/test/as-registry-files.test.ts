import { describe, expect, it } from 'vitest'
import { asNameKey } from '../src/as-registry/as-name-key.js'
import { parseAddress, prefixCount } from '../src/as-registry/ip-ranges.js'
import { RegistryFileError, registryRecords } from '../src/as-registry/registry-csv.js'
import { RegistryGatherer } from '../src/as-registry/registry-entries.js'

// The registry files as text: RFC 4180 records (quotes, commas and line breaks in names, CRLF),
// refused whole when truncated or malformed; addresses of both versions and the -num files;
// one entry per ASN whatever the duplicates; the name search's key.

const records = (text: string) => [...registryRecords(text, 'f.csv')].map((r) => r.fields)

describe('registry CSV records', () => {
  it('reads quoted commas, doubled quotes, line breaks in a name and CRLF line ends', () => {
    const text =
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\r\n' +
      '2.0.0.0,2.0.0.255,7,"Say ""hi""\nsecond line"\n' +
      '\n' +
      '3.0.0.0,3.0.0.255,8,plain\u0007bell\u200fRTL'
    expect(records(text)).toEqual([
      ['1.0.0.0', '1.0.0.255', '13335', 'Cloudflare, Inc.'],
      ['2.0.0.0', '2.0.0.255', '7', 'Say "hi"\nsecond line'],
      ['3.0.0.0', '3.0.0.255', '8', 'plain\u0007bell\u200fRTL'],
    ])
    // The line a record starts on, counting the line break inside the quotes.
    expect([...registryRecords(text, 'f.csv')].map((r) => r.line)).toEqual([1, 2, 5])
  })

  it('refuses a truncated file and a record with the wrong field count, naming the line', () => {
    expect(() => records('1.0.0.0,1.0.0.255,1,ok\n2.0.0.0,2.0.0.255,2,"cut')).toThrow(
      /f\.csv, line 2: a quoted field never ends/,
    )
    expect(() => records('1.0.0.0,1.0.0.255,1\n')).toThrow(RegistryFileError)
    expect(() => records('1.0.0.0,1.0.0.255,1,a,b\n')).toThrow(/5 fields where 4/)
    expect(records('')).toEqual([])
  })
})

describe('registry addresses', () => {
  it('reads IPv4, IPv6 (with :: and an embedded quad) and decimal addresses', () => {
    expect(parseAddress('1.0.0.255', undefined)).toEqual({ version: 4, value: 0x010000ffn })
    expect(parseAddress('2001:200::', undefined)).toEqual({
      version: 6,
      value: 0x20010200n << 96n,
    })
    expect(parseAddress('::ffff:1.2.3.4', undefined)?.value).toBe(0xffff01020304n)
    expect(parseAddress('::', undefined)).toEqual({ version: 6, value: 0n })
    expect(parseAddress('16777216', undefined)).toEqual({ version: 4, value: 16777216n })
    expect(parseAddress('16777216', 6)).toEqual({ version: 6, value: 16777216n })
    expect(parseAddress('4294967296', undefined)?.version).toBe(6)
    for (const bad of ['', '1.2.3', '1.2.3.256', '1::2::3', '12345::', 'x', '1.2.3.4.5', '-1'])
      expect(parseAddress(bad, undefined), bad).toBeUndefined()
    expect(parseAddress('4294967296', 4)).toBeUndefined()
  })

  it('counts the CIDR prefixes that exactly cover a range', () => {
    expect(prefixCount(0n, 255n, 32)).toBe(1)
    expect(prefixCount(0n, (1n << 32n) - 1n, 32)).toBe(1)
    // 1.0.128.0 - 1.0.196.255: 1.0.128.0/18, 1.0.192.0/22, 1.0.196.0/24.
    expect(prefixCount(0x01008000n, 0x0100c4ffn, 32)).toBe(3)
    expect(prefixCount(5n, 5n, 32)).toBe(1)
    // 1, 2-3, 4-5, 6.
    expect(prefixCount(1n, 6n, 32)).toBe(4)
  })
})

describe('registry entries', () => {
  it('gives one entry per ASN: its most frequent name, merged space, duplicates counted once', () => {
    const gatherer = new RegistryGatherer()
    const rows = [
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      '1.0.0.128,1.0.1.127,13335,Cloudflare',
      '1.1.1.0,1.1.1.255,13335,"Cloudflare, Inc."',
      '2001:db8::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,13335,"Cloudflare, Inc."',
      '9.9.9.0,9.9.9.255,4294967295,\u0000Top\u0000',
    ].join('\n')
    gatherer.add(registryRecords(rows, 'f.csv'), 'f.csv', undefined)
    expect(gatherer.entries()).toEqual([
      {
        asn: 13335,
        name: 'Cloudflare, Inc.',
        // 1.0.0.0-1.0.1.127 (384 addresses, 2 /24s, a /24 and a /25) and 1.1.1.0/24.
        ipv4: { addresses: 640, slash24s: 3, prefixes: 3 },
        ipv6: { slash48s: 2, prefixes: 1 },
      },
      {
        asn: 4294967295,
        name: 'Top',
        ipv4: { addresses: 256, slash24s: 1, prefixes: 1 },
        ipv6: { slash48s: 0, prefixes: 0 },
      },
    ])
  })

  it('refuses a row with a bad range or ASN, naming the line', () => {
    const add = (row: string) =>
      new RegistryGatherer().add(registryRecords(row, 'f.csv'), 'f.csv', undefined)
    expect(() => add('1.0.0.9,1.0.0.1,1,x')).toThrow(/line 1: range starts after it ends/)
    expect(() => add('1.0.0.0,::1,1,x')).toThrow(/not an address range/)
    for (const asn of ['-1', '4294967296', '1.5', 'AS1', ''])
      expect(() => add(`1.0.0.0,1.0.0.1,${asn},x`), asn).toThrow(/not an ASN/)
  })
})

describe('the name search key', () => {
  it('ignores case, accents and punctuation, one rule for names and queries', () => {
    expect(asNameKey('Level 3 Communications, Inc.')).toBe('level 3 communications inc')
    expect(asNameKey('  TELEFÓNICA  de España ')).toBe('telefonica de espana')
    expect(asNameKey('ﬁber')).toBe('fiber')
    expect(asNameKey('%_.*\\')).toBe('')
    expect(asNameKey('WILLIAN MENDES DE OLIVEIRA \u00ad ME')).toBe('willian mendes de oliveira me')
  })
})
