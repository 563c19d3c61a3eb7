import { fileURLToPath } from 'node:url'

/** A small real IPv4 file: 200 lines of CAIDA's 2014-06-01 file (81 ASes, 71 links). */
export const FIXTURE = fileURLToPath(
  new URL('../../fixtures/20140601.as-rel.txt.bz2', import.meta.url),
)

/** {@link FIXTURE} with one malformed line (line 165) inserted: a valid bz2 that cannot parse. */
export const MALFORMED_FIXTURE = fileURLToPath(
  new URL('../../fixtures/malformed-line.as-rel.txt.bz2', import.meta.url),
)
