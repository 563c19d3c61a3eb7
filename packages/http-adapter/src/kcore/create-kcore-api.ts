import { createRevisionMemo } from '@kcore/db'
import type { SnapshotProvider } from '@kcore/engine'
import { createScheduler, createSyncRunner, DEFAULT_SCHEDULER } from '@kcore/store'
import type { Api, Route } from '../route.js'
import { kcoreWebhookErrors, webhookRoutes } from '../webhooks/index.js'
import { createAdminAuth } from './admin-auth.js'
import { asnRoutes } from './asn-routes.js'
import { kcoreInvalidInput } from './invalid-input.js'
import { KCORE_BASE, type KcoreApiOptions } from './kcore-api-options.js'
import type { KcoreContext } from './kcore-context.js'
import { openApiRoute } from './openapi-route.js'
import { refreshRoutes } from './refresh-routes.js'
import { researchRoutes } from './research-routes.js'
import { statusRoutes } from './status-routes.js'
import { storeErrorToHttp } from './store-error-status.js'
import { trendRoutes } from './trend-routes.js'
import { whatIfRoutes } from './what-if-routes.js'

/**
 * The k-core trends API under `/api` (see `shared/spec/kcore-api.md`): health, summary,
 * trends, snapshots, research, what-if, refresh, scheduler status and `GET /api/openapi.json`. Mount it with
 * `createHandler({ kcore: options })`. It maps requests to the store and starts nothing: no
 * timer, no fetch before a refresh is asked for. The update scheduler, if any, is the host's
 * (`options.scheduler`; `@kcore/service` builds and closes it).
 */
export function createKcoreApi(options: KcoreApiOptions): Api {
  const now = options.now ?? (() => new Date())
  const runner =
    options.runner ??
    createSyncRunner(options.store, providerOf(options), { deadlineMs: options.refreshDeadlineMs })
  // Without the host's scheduler: a disabled one, which only reports (it has no job).
  const scheduler =
    options.scheduler ??
    createScheduler({ ...DEFAULT_SCHEDULER, enabled: false }, { runner, now, onError: () => {} })
  const ctx: KcoreContext = {
    store: options.store,
    version: options.version,
    auth: createAdminAuth(options.adminToken),
    runner,
    scheduler,
    now,
  }
  const documented: Route[] = [
    ...statusRoutes(ctx),
    ...trendRoutes(trendMemo(options.trendMemoBytes)),
    ...researchRoutes(),
    ...whatIfRoutes(),
    ...asnRoutes(),
    ...refreshRoutes(ctx),
    // Admin only: with no admin token, anyone could read the subscriptions, so none are served.
    ...(options.webhooks && ctx.auth.required
      ? webhookRoutes({
          api: 'kcore',
          subscriptions: options.webhooks,
          authorize: (request) => ctx.auth.assert(request),
          errors: kcoreWebhookErrors,
        })
      : []),
  ]
  const info = { base: KCORE_BASE, title: 'AS k-core trends API', version: options.version }
  const openapi = openApiRoute(info, () => [...documented, openapi])
  return {
    ...info,
    errorStyle: 'plain',
    routes: [...documented, openapi],
    invalidInput: kcoreInvalidInput,
    reader: () => options.store.reader(),
    mapError: storeErrorToHttp,
    // A refresh asked for over HTTP finishes before the host closes the database.
    close: () => runner.idle(),
  }
}

/** The memo of trend answers, bounded by `maxBytes` (default 32 MiB); none for `false`. */
function trendMemo(maxBytes: number | false = 32 * 1024 * 1024) {
  return maxBytes === false ? undefined : createRevisionMemo({ maxBytes })
}

/** The default runner's provider; a runner without one refuses refreshes with a clear error. */
function providerOf(options: KcoreApiOptions): SnapshotProvider {
  if (options.provider) return options.provider
  const none = async (): Promise<never> => {
    throw new Error('no snapshot provider is configured')
  }
  return { list: none, open: none }
}
