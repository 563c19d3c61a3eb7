export type { CalApiOptions } from './cal-api-options.js'
export { createCalApi } from './create-cal-api.js'
