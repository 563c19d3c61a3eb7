export {
  CAL_BASE,
  CAL_EXPOSED_HEADERS,
  CAL_NAMESPACE,
  type CalApiOptions,
} from './cal-api-options.js'
export { createCalApi } from './create-cal-api.js'
