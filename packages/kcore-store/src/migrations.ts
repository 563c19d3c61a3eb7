import type { Migration, MigrationProvider } from 'kysely'
import { initial } from './migrations/0001-initial.js'
import { revision } from './migrations/0002-revision.js'
import { provenance } from './migrations/0003-provenance.js'
import { revisionNotify } from './migrations/0004-revision-notify.js'
import { compactShells } from './migrations/0005-compact-shells.js'
import { asnFences } from './migrations/0006-asn-fences.js'
import { trendIndex } from './migrations/0007-trend-index.js'
import { dropTrendIndex } from './migrations/0008-drop-trend-index.js'
import { asRegistry } from './migrations/0009-as-registry.js'
import { snapshotLinks } from './migrations/0010-snapshot-links.js'
import { revisionPayload } from './migrations/0011-revision-payload.js'

/** Kysely's bookkeeping tables for this package (apart from every other package's). */
export const KCORE_MIGRATION_TABLE = 'kcore_migration'
export const KCORE_MIGRATION_LOCK_TABLE = 'kcore_migration_lock'

/**
 * The migrations of `@kcore/store`, in order, one per file under `migrations/` (as Kysely lays
 * them out). The ids are what databases have recorded: they never change once released.
 */
export const kcoreMigrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_revision': revision,
  '0003_provenance': provenance,
  '0004_revision_notify': revisionNotify,
  '0005_compact_shells': compactShells,
  '0006_asn_fences': asnFences,
  '0007_trend_index': trendIndex,
  '0008_drop_trend_index': dropTrendIndex,
  '0009_as_registry': asRegistry,
  '0010_snapshot_links': snapshotLinks,
  '0011_revision_payload': revisionPayload,
}

/** A static, in-code migration provider (no file system look-ups, works in every runtime). */
export const kcoreMigrationProvider: MigrationProvider = {
  async getMigrations() {
    return kcoreMigrations
  },
}
