import { execFileSync } from 'node:child_process'

/**
 * A bzip2 bomb of valid lines that a pool splits: 1 MB of `1|2|0` lines per 114-byte stream,
 * 5,000 streams, ~5 GB of text in 570 kB.
 */
export function bzip2Bomb(): Uint8Array {
  const stream = execFileSync('bzip2', ['-9', '-c'], {
    input: Buffer.from('1|2|0\n'.repeat(1_000_000 / 6)),
  })
  return new Uint8Array(Buffer.concat(Array.from({ length: 5_000 }, () => stream)))
}
