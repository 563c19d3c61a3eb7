import { fileProvider } from './file-provider.js'
import { httpProvider } from './http-provider.js'
import {
  DEFAULT_MAX_DOWNLOAD_BYTES,
  type ProviderOptions,
  type SnapshotProvider,
} from './snapshot-provider.js'

/**
 * A snapshot provider. An `http(s)://` base reads the directory-index HTML under `serial-1/`
 * (`serial-2/` too when `serial2`) with `fetch`, timeouts and retries; a `file:///` base reads a
 * local folder with the same layout. A file larger than `maxDownloadBytes` is refused with a
 * {@link ProviderError}. A missing trailing slash on the base is added.
 *
 * @throws {TypeError} for a base URL that is not http(s) or file.
 * @example
 * ```ts
 * const provider = createProvider({ baseUrl: DEFAULT_PROVIDER_URL })
 * const [latest] = (await provider.list('ipv4')).slice(-1)
 * const graph = await parseAsRel(await provider.open(latest!))
 * ```
 */
export function createProvider(options: ProviderOptions): SnapshotProvider {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`)
  const serial2 = options.serial2 ?? false
  const maxBytes = options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES
  if (base.protocol === 'file:') return fileProvider(base, { serial2, maxBytes })
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`provider URL must be http(s):// or file:///, got ${options.baseUrl}`)
  }
  return httpProvider(base, {
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    timeoutMs: options.timeoutMs ?? 60_000,
    retries: options.retries ?? 3,
    retryDelayMs: options.retryDelayMs ?? 1_000,
    maxBytes,
    serial2,
  })
}
