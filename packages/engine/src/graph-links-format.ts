/**
 * The first bytes of an encoded graph ({@link encodeGraphLinks}): `kcgl` and the format
 * version. A format change takes a new version; a decoder refuses versions it does not know.
 */
export const GRAPH_LINKS_MAGIC = [0x6b, 0x63, 0x67, 0x6c] as const

/** The version {@link encodeGraphLinks} writes. */
export const GRAPH_LINKS_VERSION = 1
