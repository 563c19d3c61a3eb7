import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type CalStore, seedDemoCalendar } from '@cal/store'
import { parseSnapshotFileName } from '@kcore/engine'
import { ingestFile, type KcoreStore } from '@kcore/store'
import type { Logger } from './logger.js'

/** The sample CAIDA snapshots shipped with this package (`data/`, see its README). */
export const SAMPLE_DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url))

/**
 * First start on an empty embedded database: ingests the sample snapshots and the demo
 * calendar, so a newcomer can query both APIs at once with no network. Stores that already
 * hold data are left alone.
 */
export async function seedEmptyStores(
  stores: { kcore: KcoreStore; cal: CalStore },
  options: { seedDir?: string; now: Date; log: Logger },
): Promise<void> {
  const dir = options.seedDir ?? SAMPLE_DATA_DIR
  if ((await (await stores.kcore.reader()).snapshotCount()) === 0) {
    const files = (await readdir(dir).catch(() => [] as string[]))
      .filter((name) => parseSnapshotFileName(name))
      .sort()
    for (const name of files) {
      const info = await ingestFile(stores.kcore, join(dir, name))
      options.log.info('seeded snapshot', { file: name, ...info })
    }
    if (files.length === 0) options.log.warn('no sample snapshots to seed', { dir })
  }
  if (await stores.cal.isEmpty()) {
    await seedDemoCalendar(stores.cal, { now: options.now })
    options.log.info('seeded demo calendar')
  }
}
