import type { HttpError } from '../http-error.js'
import type { InputIssue, InputPart } from '../route.js'
import { invalidParams } from './cal-error.js'

/**
 * The calendar's validation error: 400 `rest_invalid_param` with `data.params` naming each
 * top-level field (nested paths are kept in the reason), as WordPress does.
 */
export function calInvalidInput(part: InputPart, issues: InputIssue[]): HttpError {
  const params: Record<string, string> = {}
  for (const issue of issues) {
    const [head, ...rest] = issue.path
    const field = head === undefined ? part : String(head)
    if (field in params) continue
    params[field] = rest.length ? `${rest.map(String).join('.')}: ${issue.message}` : issue.message
  }
  return invalidParams(params)
}
