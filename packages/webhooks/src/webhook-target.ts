import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { embeddedIpv4 } from './embedded-ipv4.js'
import { WebhookError } from './webhook-error.js'

/** Every address a host name resolves to (`node:dns` `lookup` with `all: true`). */
export type LookupAll = (hostname: string) => Promise<readonly { address: string }[]>

/** The system resolver, as `fetch` itself resolves: every address, in the resolver's order. */
export const systemLookup: LookupAll = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true })

/** Longer URLs are refused: no receiver needs one, and each is stored and sent on every message. */
export const MAX_URL_LENGTH = 2048

const invalidUrl = (message: string) => new WebhookError('invalid_input', message, { field: 'url' })

/** A receiver URL as subscriptions accept it: absolute http(s), without credentials. */
export function parseWebhookUrl(input: string): URL {
  if (input.length > MAX_URL_LENGTH)
    throw invalidUrl(`url is longer than ${MAX_URL_LENGTH} characters`)
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw invalidUrl('url is not an absolute URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidUrl('url must use http or https')
  // Credentials in a URL are stored and listed in clear, and end up in logs.
  if (url.username !== '' || url.password !== '')
    throw invalidUrl('url must not contain a user name or password')
  return url
}

/** Where every public IPv6 allocation is. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3')

/**
 * True for an address on the public internet. An IPv4 address must be one ipaddr.js classes as
 * `unicast`: no loopback, private, link-local (cloud metadata at 169.254.169.254),
 * unspecified, carrier-grade NAT, multicast, broadcast or reserved. An IPv6 form that carries
 * an IPv4 address (compatible, mapped, NAT64, 6to4, Teredo: see {@link embeddedIpv4}) is judged
 * by every IPv4 address it names, so `::7f00:1` is loopback and `64:ff9b::8.8.8.8` public; any
 * other IPv6 address must lie in the global unicast block `2000::/3` (where every public
 * allocation is) and be `unicast` to ipaddr.js (no documentation, ORCHID, benchmarking…).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  const embedded = embeddedIpv4(v6)
  if (embedded === 'unknowable') return false
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast')
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast'
}

/**
 * Refuses a URL whose host is, or resolves to, a non-public address (one such address is
 * enough: a host with several is tried in turn). Run at subscription and again before every
 * send, since a name may resolve elsewhere later (DNS rebinding). `allowPrivate` skips it (tests,
 * receivers inside the operator's network).
 */
export async function checkWebhookTarget(
  url: URL,
  options: { allowPrivate: boolean; lookup?: LookupAll | undefined },
): Promise<void> {
  if (options.allowPrivate) return
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) throw invalidUrl(`url points to a non-public address (${host})`)
    return
  }
  let addresses: readonly { address: string }[]
  try {
    addresses = await (options.lookup ?? systemLookup)(host)
  } catch (cause) {
    throw new WebhookError('invalid_input', `url host ${host} does not resolve`, {
      field: 'url',
      cause,
    })
  }
  if (addresses.length === 0) throw invalidUrl(`url host ${host} does not resolve`)
  const refused = addresses.find((a) => !isPublicAddress(a.address))
  if (refused)
    throw invalidUrl(`url host ${host} resolves to a non-public address (${refused.address})`)
}
