/**
 * `arrays` one after another in one array made by `make` (the only one itself, not a copy,
 * when it is alone). Web-standard typed arrays only: the engine runs where `Buffer.concat`
 * does not.
 */
export function concatArrays<T extends Uint8Array | Uint32Array>(
  make: (length: number) => T,
  arrays: readonly T[],
): T {
  if (arrays.length === 1) return arrays[0] as T
  let length = 0
  for (const array of arrays) length += array.length
  const out = make(length)
  let offset = 0
  for (const array of arrays) {
    out.set(array, offset)
    offset += array.length
  }
  return out
}
