import { createScheduler, createSyncRunner, DEFAULT_SCHEDULER } from '@kcore/store'
import type { Api, Route } from '../route.js'
import { createAdminAuth } from './admin-auth.js'
import { kcoreInvalidInput } from './invalid-input.js'
import { KCORE_BASE, type KcoreApiOptions } from './kcore-api-options.js'
import type { KcoreContext } from './kcore-context.js'
import { openApiRoute } from './openapi-route.js'
import { refreshRoutes } from './refresh-routes.js'
import { researchRoutes } from './research-routes.js'
import { createResponseCache } from './response-cache.js'
import { statusRoutes } from './status-routes.js'
import { trendRoutes } from './trend-routes.js'

/**
 * The k-core trends API under `/api` (see `shared/spec/kcore-api.md`): health, summary,
 * trends, snapshots, refresh, the update scheduler and `GET /api/openapi.json`. Mount it with
 * `createHandler({ kcore: options })`. The scheduler starts at once (unless disabled);
 * `Api.close()` stops it and waits for a running check.
 *
 * @throws {KcoreConfigError} for an invalid cron expression (not five fields, or unparsable).
 */
export function createKcoreApi(options: KcoreApiOptions): Api {
  const now = options.now ?? (() => new Date())
  const onError = options.onError ?? (() => {})
  const settings = options.responseCache === false ? undefined : (options.responseCache ?? {})
  const cache = settings
    ? createResponseCache({
        maxSize: settings.maxBytes ?? 32 * 1024 * 1024,
        revalidateMs: settings.revalidateMs ?? 1_000,
        stamp: () => options.store.revision(),
      })
    : undefined
  const runner = createSyncRunner(
    options.store,
    options.provider,
    () => cache?.clear(),
    options.refreshDeadlineMs,
  )
  const scheduler = createScheduler(options.scheduler ?? DEFAULT_SCHEDULER, {
    runner,
    now,
    onError,
  })
  const ctx: KcoreContext = {
    store: options.store,
    version: options.version,
    auth: createAdminAuth(options.adminToken),
    runner,
    scheduler,
    now,
    cache,
  }
  const documented: Route[] = [
    ...statusRoutes(ctx),
    ...trendRoutes(ctx),
    ...researchRoutes(ctx),
    ...refreshRoutes(ctx),
  ]
  const info = { base: KCORE_BASE, title: 'AS k-core trends API', version: options.version }
  const openapi = openApiRoute(info, () => [...documented, openapi])
  return {
    ...info,
    errorStyle: 'plain',
    routes: [...documented, openapi],
    invalidInput: kcoreInvalidInput,
    close: () => scheduler.close(),
  }
}
