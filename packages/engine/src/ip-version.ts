/** The IP version of a snapshot. */
export type IpVersion = 'ipv4' | 'ipv6'
