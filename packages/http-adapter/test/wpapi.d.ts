/** The part of `wpapi` (no published types) the paging test uses. */
declare module 'wpapi' {
  interface WPRequest {
    perPage(n: number): WPRequest
    param(key: string, value: string | number | string[]): WPRequest
    get(): Promise<WPBody>
  }
  interface WPBody {
    [key: string]: unknown
    _paging?: { total: number; totalPages: number; next?: WPRequest; prev?: WPRequest }
  }
  export default class WPAPI {
    constructor(options: { endpoint: string })
    registerRoute(namespace: string, route: string): () => WPRequest
  }
}
