import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createExplorer } from './create-explorer.js'
import { CONTENT_SECURITY_POLICY, IMMUTABLE_CACHE } from './page-headers.js'

// A hand-made dist/ (the mechanism, independent of the real build), with a file beside it that
// must never be served.
const temps: string[] = []
afterAll(() => Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true }))))

async function fakeDist(): Promise<URL> {
  const dir = await mkdtemp(join(tmpdir(), 'kcore-explorer-'))
  temps.push(dir)
  await mkdir(join(dir, 'assets'))
  await writeFile(
    join(dir, 'index.html'),
    '<!doctype html><script src="/assets/app-AB12.js"></script>',
  )
  await writeFile(join(dir, 'assets', 'app-AB12.js'), 'console.log(1)')
  await writeFile(join(dir, 'assets', 'secret.js'), 'not listed')
  await writeFile(join(dir, 'secret.txt'), 'never served')
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify({
      html: { file: 'index.html', sha256: 'x' },
      entry: { js: '/assets/app-AB12.js', css: '/assets/app-AB12.js' },
      assets: {
        '/assets/app-AB12.js': {
          file: 'assets/app-AB12.js',
          type: 'text/javascript; charset=utf-8',
          sha256: 'x',
          bytes: 14,
        },
      },
    }),
  )
  return pathToFileURL(`${dir}/`)
}

const get = (path: string, method = 'GET') => new Request(`http://localhost${path}`, { method })

describe('createExplorer', () => {
  it('serves the page at / (any query) with no-cache, nosniff and the strict CSP', async () => {
    const explorer = createExplorer({ dist: await fakeDist() })
    for (const path of ['/', '/?asns=3356,174&ip_version=ipv6', '/?%ZZ=&&']) {
      const response = await explorer(get(path))
      expect(response?.status).toBe(200)
      expect(response?.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response?.headers.get('cache-control')).toBe('no-cache')
      expect(response?.headers.get('x-content-type-options')).toBe('nosniff')
      expect(response?.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
      expect(await response?.text()).toContain('/assets/app-AB12.js')
    }
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe')
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'")
  })

  it('serves a listed asset as immutable with its type', async () => {
    const response = await createExplorer({ dist: await fakeDist() })(get('/assets/app-AB12.js'))
    expect(response?.status).toBe(200)
    expect(response?.headers.get('cache-control')).toBe(IMMUTABLE_CACHE)
    expect(response?.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response?.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await response?.text()).toBe('console.log(1)')
  })

  it('leaves every other path and method to the host (undefined), files beside the assets too', async () => {
    const explorer = createExplorer({ dist: await fakeDist() })
    const refused = [
      '/assets/secret.js',
      '/assets/',
      '/assets/../secret.txt',
      '/assets/%2e%2e/secret.txt',
      '/assets/app-AB12.js/',
      '/secret.txt',
      '/manifest.json',
      '/index.html',
      '/api',
      '//',
    ]
    for (const path of refused) expect(await explorer(get(path)), path).toBeUndefined()
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      expect(await explorer(get('/', method)), method).toBeUndefined()
    }
    await fc.assert(
      fc.asyncProperty(fc.webPath(), async (path) => {
        const response = await explorer(get(path.startsWith('/') ? path : `/${path}`))
        if (response)
          expect(['/', '/assets/app-AB12.js']).toContain(new URL(get(path).url).pathname)
      }),
    )
  })

  it('answers 503 with a JSON hint while the page is not built, and recovers once it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcore-explorer-empty-'))
    temps.push(dir)
    const dist = pathToFileURL(`${dir}/`)
    const explorer = createExplorer({ dist })
    const missing = await explorer(get('/'))
    expect(missing?.status).toBe(503)
    expect(await missing?.json()).toMatchObject({ error: 'explorer_not_built', status: 503 })
    const built = await fakeDist()
    const later = createExplorer({ dist: built })
    expect((await later(get('/')))?.status).toBe(200)
    // The same explorer retries after a failed load instead of caching the failure.
    await writeFile(join(dir, 'index.html'), 'ok')
    await writeFile(
      join(dir, 'manifest.json'),
      JSON.stringify({
        html: { file: 'index.html', sha256: 'x' },
        entry: { js: '', css: '' },
        assets: {},
      }),
    )
    expect(await (await explorer(get('/')))?.text()).toBe('ok')
  })
})
