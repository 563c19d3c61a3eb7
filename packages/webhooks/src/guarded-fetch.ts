import type { LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent, fetch as undiciFetch } from 'undici'
import { checkedConnector } from './checked-connector.js'
import { isPublicAddress, type LookupAll, systemLookup } from './webhook-target.js'

/** A `fetch` and what closes its connections. */
export interface GuardedFetch {
  fetch: typeof fetch
  close(): Promise<void>
}

/**
 * A `fetch` that talks only to public addresses, checked twice where the connection is made:
 * the lookup of the connection refuses a name with any non-public address before connecting
 * (so a name cannot resolve to a public address for the subscription's check and to a private
 * one for the connection: DNS rebinding), and the socket's remote address is checked once
 * connected, before a byte is sent (which covers literal addresses, never looked up).
 */
export function guardedFetch(lookup: LookupAll = systemLookup): GuardedFetch {
  const agent = new Agent({ connect: checkedConnector(publicOnlyLookup(lookup)) })
  return {
    // undici's own fetch with its own agent (the global one may be another undici version).
    fetch: ((input: string | URL, init?: RequestInit) =>
      undiciFetch(input, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        dispatcher: agent,
      })) as unknown as typeof fetch,
    close: () => agent.close(),
  }
}

/** `net.connect`'s `lookup` through `lookup`, failing when any address found is not public. */
function publicOnlyLookup(lookup: LookupAll): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname).then(
      (found) => {
        const refused = found.find((a) => !isPublicAddress(a.address))
        if (refused || found.length === 0) {
          const reason = refused ? `a non-public address (${refused.address})` : 'nothing'
          return callback(new Error(`${hostname} resolved to ${reason}`), '', 0)
        }
        const addresses: LookupAddress[] = found.map((a) => ({
          address: a.address,
          family: isIP(a.address),
        }))
        // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily).
        if ((options as { all?: boolean }).all) return callback(null, addresses)
        callback(null, addresses[0]!.address, addresses[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
