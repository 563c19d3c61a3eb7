/**
 * bzip2's CRC-32: the polynomial 0x04c11db7 fed most significant bit first (not the reflected
 * CRC of gzip and zip). `CRC_TABLE[i]` is the CRC register update for the top byte `i`.
 */
export const CRC_TABLE: Int32Array = (() => {
  const table = new Int32Array(256)
  for (let i = 0; i < 256; i++) {
    let c = i << 24
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1
    table[i] = c
  }
  return table
})()

/** A stream's CRC from its blocks' CRCs, in order: rotate left by one, then xor the next. */
export function combineBlockCrc(streamCrc: number, blockCrc: number): number {
  return (((streamCrc << 1) | (streamCrc >>> 31)) ^ blockCrc) >>> 0
}
