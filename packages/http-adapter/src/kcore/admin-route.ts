import { readJsonBody } from '../read-json-body.js'
import type { Route } from '../route.js'
import type { AdminAuth } from './admin-auth.js'
import { kcoreInvalidInput } from './invalid-input.js'

/**
 * A mutating route as mounted: the admin token is checked first, then the body is read and
 * validated, so an unauthenticated caller learns nothing about the body rules (401 before
 * 400/415). The original route, schemas included, still feeds the OpenAPI document.
 */
export function adminRoute(auth: AdminAuth, documented: Route): Route {
  const { body: schema, ...rest } = documented
  return {
    ...rest,
    async handle(input) {
      auth.assert(input.request)
      // Read even without a schema: a body-less route still refuses a non-JSON body (415).
      const raw = await readJsonBody(input.request)
      let body: unknown
      if (schema) {
        const parsed = schema.safeParse(raw)
        if (!parsed.success) throw kcoreInvalidInput('body', parsed.error.issues)
        body = parsed.data
      }
      return documented.handle({ ...input, body })
    },
  }
}
