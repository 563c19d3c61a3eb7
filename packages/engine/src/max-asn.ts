/** Largest AS number: AS numbers are unsigned 32-bit integers (RFC 6793). */
export const MAX_ASN = 4_294_967_295
