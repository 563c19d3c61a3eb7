// Placeholder: replaced by the calendar API implementation.
import type { Api } from '../route.js'

export interface CalApiOptions {
  [key: string]: unknown
}

export function createCalApi(_options: CalApiOptions): Api {
  throw new Error('not implemented yet')
}
