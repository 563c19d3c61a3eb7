import type { ShellChange, WhatIfResult } from './what-if.js'

/**
 * @internal A {@link WhatIfResult} as a worker posts it: the changes in one typed array of
 * `asn, before, after` triples (`NONE` for null), transferred, so that neither thread
 * serializes thousands of small objects (removing AS 174 from a 2024 snapshot moves 6,792).
 */
export type PackedWhatIf = Omit<WhatIfResult, 'changes'> & { changes: Uint32Array }

/** A shell index no graph reaches: null in a packed change. */
const NONE = 0xffff_ffff

/** @internal The result packed for posting. */
export function packWhatIf(result: WhatIfResult): PackedWhatIf {
  const { changes } = result
  const packed = new Uint32Array(changes.length * 3)
  changes.forEach((change, i) => {
    packed[3 * i] = change.asn
    packed[3 * i + 1] = change.before ?? NONE
    packed[3 * i + 2] = change.after ?? NONE
  })
  return { ...result, changes: packed }
}

/** @internal {@link packWhatIf} undone. */
export function unpackWhatIf(packed: PackedWhatIf): WhatIfResult {
  const { changes: flat } = packed
  const changes: ShellChange[] = new Array(flat.length / 3)
  for (let i = 0; i < changes.length; i++) {
    const before = flat[3 * i + 1]!
    const after = flat[3 * i + 2]!
    changes[i] = {
      asn: flat[3 * i]!,
      before: before === NONE ? null : before,
      after: after === NONE ? null : after,
    }
  }
  return { ...packed, changes }
}
