import ipaddr from 'ipaddr.js'

/**
 * The IPv4 addresses an IPv6 address stands for, when it is one of the forms that carry one:
 * `undefined` for any other IPv6 address, `'unknowable'` for the local-use NAT64 prefix.
 *
 * - compatible `::a.b.c.d` (`::/96`, deprecated, still accepted by resolvers and parsers);
 * - mapped `::ffff:a.b.c.d` and translated `::ffff:0:a.b.c.d` (RFC 4291, RFC 6145);
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052): a gateway connects to the address;
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056): the relay's IPv4 end;
 * - Teredo `2001::/32` (RFC 4380): the server (bits 32-63) and the client (the last 32 bits,
 *   every bit flipped); both are reached.
 *
 * In the local-use NAT64 prefix `64:ff9b:1::/48` (RFC 8215) the operator chooses where the IPv4
 * address sits, so which one it names cannot be told from the address.
 */
export function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4[] | 'unknowable' | undefined {
  const w = address.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0)
  if (zero(0, 6)) return [v4(w[6]!, w[7]!)]
  if (zero(0, 5) && w[5] === 0xffff) return [v4(w[6]!, w[7]!)]
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return [v4(w[6]!, w[7]!)]
  if (w[0] === 0x64 && w[1] === 0xff9b) {
    if (zero(2, 6)) return [v4(w[6]!, w[7]!)]
    if (w[2] === 1) return 'unknowable'
    return undefined
  }
  if (w[0] === 0x2002) return [v4(w[1]!, w[2]!)]
  if (w[0] === 0x2001 && w[1] === 0) return [v4(w[2]!, w[3]!), v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff)]
  return undefined
}
