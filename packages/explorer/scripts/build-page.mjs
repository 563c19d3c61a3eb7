// Builds the browser page into dist/: the JS and CSS bundles under content-hashed names in
// dist/assets/, dist/index.html referencing them, and dist/manifest.json listing every file the
// server may send (it serves nothing else). Runs after tsup, which empties dist/ first.
import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
await mkdir(join(dist, 'assets'), { recursive: true })

const result = await build({
  absWorkingDir: root,
  entryPoints: { explorer: 'src/page/main.ts' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome109', 'firefox115', 'safari16'],
  outdir: 'dist/assets',
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
})

const outputs = Object.entries(result.metafile.outputs)
const js = outputs.find(([, meta]) => meta.entryPoint)
if (!js?.[1].cssBundle) throw new Error('esbuild produced no JS entry with a CSS bundle')
const jsPath = `/${relative(dist, join(root, js[0]))}`
const cssPath = `/${relative(dist, join(root, js[1].cssBundle))}`

const template = await readFile(join(root, 'src/page/index.html'), 'utf8')
const html = template.replace('%CSS%', cssPath).replace('%JS%', jsPath)
await writeFile(join(dist, 'index.html'), html)

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('base64url')
const files = {}
for (const path of [jsPath, cssPath]) {
  const bytes = await readFile(join(dist, path))
  files[path] = {
    file: path.slice(1),
    type: typeOf(path),
    sha256: sha256(bytes),
    bytes: bytes.length,
  }
}
const manifest = {
  html: { file: 'index.html', sha256: sha256(html) },
  entry: { js: jsPath, css: cssPath },
  assets: files,
}
await writeFile(join(dist, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
console.log(`explorer page: ${basename(jsPath)} ${basename(cssPath)}`)

function typeOf(path) {
  if (path.endsWith('.js')) return 'text/javascript; charset=utf-8'
  if (path.endsWith('.css')) return 'text/css; charset=utf-8'
  throw new Error(`no content type for ${path}`)
}
