/**
 * The parameter a query key names. PHP (and so WordPress and its clients) spell list
 * parameters `key[]=a&key[]=b` or `key[0]=a`; PHP files each under `key`, so this does too: one
 * trailing `[…]` is dropped and the values join the plain key's. Keys that are only a bracket
 * (`[]`) or nest further (`a[b][c]`) are left as they are: they name no parameter.
 */
export function queryKey(key: string): string {
  const match = /^([^[\]]+)\[[^[\]]*\]$/.exec(key)
  return match ? (match[1] as string) : key
}
