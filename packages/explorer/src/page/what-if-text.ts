import type { WhatIfResponse } from './api-types.js'

const VERSION_NAMES = { ipv4: 'IPv4', ipv6: 'IPv6' } as const
const n = (value: number) => value.toLocaleString('en')
const plural = (value: number, one: string, many: string) =>
  `${n(value)} ${value === 1 ? one : many}`

/**
 * The answer in one sentence: the largest shell index before and after, how many ASes change
 * shell, and what the question removed (and what it named that the snapshot does not have).
 */
export function whatIfSummary(answer: WhatIfResponse, drops: number): string {
  const { counts } = answer
  const removed =
    `${plural(counts.removed_asns, 'AS', 'ASes')} removed with ` +
    `${plural(counts.removed_links, 'link', 'links')}` +
    (counts.ignored_asns
      ? ` (${plural(counts.ignored_asns, 'AS', 'ASes')} named not in this snapshot)`
      : '')
  const change =
    counts.changed === 0
      ? 'no other AS changes shell index'
      : `${plural(counts.changed, 'AS changes', 'ASes change')} shell index, ${n(drops)} of them down`
  return (
    `${answer.date} ${VERSION_NAMES[answer.ip_version]}: largest shell index ` +
    `${answer.max_shell_before} → ${answer.max_shell}; ${change}; ${removed}.`
  )
}

/** The line under the drop table: how many it leaves out. */
export const moreText = (more: number): string =>
  more === 0 ? '' : `${plural(more, 'more AS drops', 'more ASes drop')} less (not listed).`
