/**
 * Address ranges of the registry's rows as integers: IPv4 dotted quads, IPv6 in any RFC 4291
 * text form (`::` and an embedded dotted quad included), or the decimal integers of the
 * `-num` files. Every value is a `bigint`, so one code path serves both versions.
 */

const MAX_V4 = (1n << 32n) - 1n
const MAX_V6 = (1n << 128n) - 1n

/** An IPv4 dotted quad as an integer, or undefined when it is not one. */
function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0n
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined
    value = (value << 8n) | BigInt(part)
  }
  return value
}

/** An IPv6 address as an integer, or undefined when it is not one. */
function parseIpv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return undefined
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groups = (part: string): string[] | undefined => {
    if (part === '') return []
    const list = part.split(':')
    const last = list.at(-1)!
    if (last.includes('.')) {
      const v4 = parseIpv4(last)
      if (v4 === undefined) return undefined
      list.splice(-1, 1, (v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16))
    }
    return list.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) ? list : undefined
  }
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  if (!head || !tail) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  let value = 0n
  for (const g of [...head, ...Array(missing).fill('0'), ...tail])
    value = (value << 16n) | BigInt(`0x${g}`)
  return value
}

/** A parsed address: its version and value. */
export interface Address {
  version: 4 | 6
  value: bigint
}

/**
 * `text` as an address: dotted quad (IPv4), colon form (IPv6), or decimal digits, read as IPv6
 * when `numericVersion` says so or the value is past the IPv4 range. Undefined when it is none.
 */
export function parseAddress(text: string, numericVersion: 4 | 6 | undefined): Address | undefined {
  if (/^\d+$/.test(text)) {
    if (text.length > 39) return undefined
    const value = BigInt(text)
    if (value > MAX_V6) return undefined
    const version = numericVersion ?? (value > MAX_V4 ? 6 : 4)
    if (version === 4 && value > MAX_V4) return undefined
    return { version, value }
  }
  if (text.includes(':')) {
    const value = parseIpv6(text)
    return value === undefined ? undefined : { version: 6, value }
  }
  const value = parseIpv4(text)
  return value === undefined ? undefined : { version: 4, value }
}

/** How many CIDR prefixes exactly cover `[start, end]` of a `bits`-bit address space. */
export function prefixCount(start: bigint, end: bigint, bits: number): number {
  let count = 0
  let at = start
  const top = 1n << BigInt(bits)
  while (at <= end) {
    // The largest aligned block starting at `at` that ends at or before `end`.
    let size = at === 0n ? top : at & -at
    while (at + size - 1n > end) size >>= 1n
    at += size
    count++
  }
  return count
}
