import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Vitest global setup: builds the explorer page (esbuild, well under a second) before any suite
 * runs, so `pnpm test` on a fresh clone serves the page the mount and bundle tests check,
 * with no `pnpm build` first. The page's bundles never go through tsup, so this is the whole
 * page build.
 */
export default function buildExplorerPage(): void {
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../scripts/build-page.mjs', import.meta.url))],
    {
      stdio: 'inherit',
    },
  )
}
