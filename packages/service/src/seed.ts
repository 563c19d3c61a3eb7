import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CalStore, seedDemoCalendar } from '@cal/store'
import { errorText } from '@kcore/db'
import { parseSnapshotFileName } from '@kcore/engine'
import { importAsRegistry, ingestFile, type KcoreStore } from '@kcore/store'
import type { Logger } from './logger.js'

/** The sample CAIDA snapshots shipped with this package (`data/`, see its README). */
export const SAMPLE_DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url))

/** The AS-name slice of `@ip-location-db/asn` (`data/as-names/`, see its NOTICE.md). */
export const AS_NAMES_DIR = fileURLToPath(new URL('../data/as-names/', import.meta.url))

/**
 * Imports the AS-name slice when the store has no registry yet, with the release's own source
 * and date (`slice.json`), so names show on first start with no network; a registry already
 * imported (the slice or a fuller one) is left alone.
 */
export async function seedAsNames(kcore: KcoreStore, log: Logger, dir = AS_NAMES_DIR) {
  if (await (await kcore.reader()).asRegistry()) return
  const meta = JSON.parse(await readFile(join(dir, 'slice.json'), 'utf8')) as {
    source: string
    date: string
    files: Record<string, unknown>
  }
  const files = Object.keys(meta.files).map((name) => join(dir, `${name}.gz`))
  const info = await importAsRegistry(kcore, files, { source: meta.source, date: meta.date })
  log.info('seeded AS names', { ...info })
}

/**
 * First start on an empty embedded database: ingests the sample snapshots, the AS-name slice
 * (unless `seedNames` is false) and the demo calendar, so a newcomer can query both APIs at once with no network. Stores that already
 * hold data are left alone.
 */
export async function seedEmptyStores(
  stores: { kcore: KcoreStore; cal: CalStore },
  options: { seedDir?: string; seedNames?: boolean; now: Date; log: Logger },
): Promise<void> {
  const dir = options.seedDir ?? SAMPLE_DATA_DIR
  if ((await (await stores.kcore.reader()).snapshotCount()) === 0) {
    const files = (await readdir(dir).catch(() => [] as string[]))
      .filter((name) => parseSnapshotFileName(name))
      .sort()
    for (const name of files) {
      const file = join(dir, name)
      const info = await ingestFile(stores.kcore, file).catch((error: unknown) => {
        throw new Error(`seeding ${file}: ${errorText(error)}`, { cause: error })
      })
      options.log.info('seeded snapshot', { file: name, ...info })
    }
    if (files.length === 0) options.log.warn('no sample snapshots to seed', { dir })
  }
  if (options.seedNames ?? true) await seedAsNames(stores.kcore, options.log)
  if (await stores.cal.isEmpty()) {
    await seedDemoCalendar(stores.cal, { now: options.now })
    options.log.info('seeded demo calendar')
  }
}
