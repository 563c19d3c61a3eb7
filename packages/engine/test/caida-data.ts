import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The shared real CAIDA folder (`../shared/data/caida` from the repository root). */
export const caidaDir = fileURLToPath(new URL('../../../../shared/data/caida/', import.meta.url))

/** Every full snapshot file there (not `partial/`), smallest first. */
export function caidaFiles(): string[] {
  return readdirSync(caidaDir)
    .filter((name) => name.endsWith('.bz2'))
    .sort()
}

/** ASes and links per file, from the folder's SOURCES.md table. */
export function caidaSources(): Map<string, { ases: number; links: number }> {
  const table = new Map<string, { ases: number; links: number }>()
  for (const line of readFileSync(`${caidaDir}SOURCES.md`, 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim())
    const name = /^`([^`/]+\.bz2)`$/.exec(cells[1] ?? '')?.[1]
    if (!name) continue
    const number = (cell: string | undefined) => Number((cell ?? '').replaceAll(',', ''))
    table.set(name, { links: number(cells[4]), ases: number(cells[5]) })
  }
  return table
}
