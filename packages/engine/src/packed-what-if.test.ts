import { describe, expect, it } from 'vitest'
import { packWhatIf, unpackWhatIf } from './packed-what-if.js'
import type { WhatIfResult } from './what-if.js'

describe('packWhatIf', () => {
  it('comes back as it went: nulls, shell 0, the largest ASN, no change at all', () => {
    const result: WhatIfResult = {
      changes: [
        { asn: 0, before: 3, after: null },
        { asn: 174, before: 155, after: 0 },
        { asn: 4_294_967_295, before: null, after: 1 },
      ],
      maxShellBefore: 155,
      maxShell: 154,
      counts: {
        changed: 1,
        removedAsns: 1,
        addedAsns: 1,
        ignoredAsns: 2,
        removedLinks: 7,
        addedLinks: 1,
        ignoredLinks: 0,
      },
    }
    const packed = packWhatIf(result)
    expect(packed.changes).toBeInstanceOf(Uint32Array)
    expect(unpackWhatIf(structuredClone(packed))).toEqual(result)
    const none = { ...result, changes: [] }
    expect(unpackWhatIf(packWhatIf(none))).toEqual(none)
  })
})
