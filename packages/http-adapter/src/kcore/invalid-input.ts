import { HttpError } from '../http-error.js'
import type { InputIssue, InputPart } from '../route.js'

const CODE_BY_FIELD: Record<string, string> = {
  asn: 'invalid_asn',
  asns: 'invalid_asn',
  ip_version: 'invalid_ip_version',
  ip_versions: 'invalid_ip_version',
  start_date: 'invalid_date',
  end_date: 'invalid_date',
  date: 'invalid_date',
  from: 'invalid_date',
  to: 'invalid_date',
  k: 'invalid_parameter',
  top: 'invalid_parameter',
  limit: 'invalid_parameter',
  min_shell: 'invalid_parameter',
  format: 'invalid_parameter',
}

const MESSAGE_BY_CODE: Record<string, string> = {
  invalid_asn: 'Invalid ASN',
  invalid_ip_version: 'Invalid IP version',
  invalid_date: 'Invalid date',
  invalid_date_range: 'start_date must not be after end_date',
  invalid_parameter: 'Invalid parameter',
  invalid_request: 'Invalid request',
}

const isRangeIssue = (issue: InputIssue) =>
  (issue as { params?: { range?: boolean } }).params?.range === true

/**
 * The k-core API's 400 for failed validation. The code names the field family when every issue
 * is about one (`invalid_asn`, `invalid_ip_version`, `invalid_date`, `invalid_date_range`),
 * else `invalid_request`; `details` lists every issue as `{path, message}`.
 */
export function kcoreInvalidInput(part: InputPart, issues: InputIssue[]): HttpError {
  const codes = new Set(
    issues.map((issue) =>
      isRangeIssue(issue)
        ? 'invalid_date_range'
        : (CODE_BY_FIELD[String(issue.path[0] ?? '')] ?? 'invalid_request'),
    ),
  )
  const code = codes.size === 1 ? [...codes][0]! : 'invalid_request'
  const details = issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : part,
    message: issue.message,
  }))
  const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ')
  return new HttpError(400, code, `${MESSAGE_BY_CODE[code]} in ${part}: ${summary}`, { details })
}
