// Placeholder: replaced by the k-core API implementation.
import type { Api } from '../route.js'

export interface KcoreApiOptions {
  [key: string]: unknown
}

export function createKcoreApi(_options: KcoreApiOptions): Api {
  throw new Error('not implemented yet')
}
