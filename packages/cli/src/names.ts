import type { Config } from '@kcore/service'
import { openStores } from '@kcore/service'
import { importAsRegistry, isCalendarDate } from '@kcore/store'
import type { Command } from 'commander'
import { UsageError } from './usage-error.js'

/** What `kcore names` needs from the program that registers it. */
export interface NamesCommandDeps {
  stdout: { write(text: string): unknown }
  /** Adds the shared database options to the command. */
  databaseOptions(command: Command): Command
  /** Fails before any work when a file is missing. */
  assertFilesExist(files: string[]): Promise<void>
  config(opts: Record<string, unknown>): Config
  done(code: number): void
}

/**
 * `kcore names import FILE… [--date] [--source]`: the AS registry (names and originated
 * address space) from `@ip-location-db/asn`-shaped CSV files, replacing the stored one whole.
 */
export function addNamesCommand(program: Command, deps: NamesCommandDeps): void {
  const names = program.command('names').description('The AS registry: names and address space.')
  deps
    .databaseOptions(
      names
        .command('import')
        .description(
          'Import AS names and address space from ip-location-db CSV files (IPv4 and IPv6 ' +
            'together), replacing the stored registry atomically.',
        )
        .argument('<files...>', 'e.g. node_modules/@ip-location-db/asn/asn-ipv4.csv')
        .option('--date <YYYY-MM-DD>', "the registry's date (default: the newest file's day)")
        .option('--source <text>', 'where it came from (default: the file names)'),
    )
    .action(async (files: string[], opts) => {
      const { date, source, ...rest } = opts
      if (date !== undefined && !isCalendarDate(date))
        throw new UsageError(`--date must be a real date written YYYY-MM-DD (got ${date})`)
      await deps.assertFilesExist(files)
      const { database, kcore } = await openStores(deps.config(rest))
      try {
        const info = await importAsRegistry(kcore, files, { date, source })
        deps.stdout.write(`AS registry of ${info.date}: ${info.asn_count} ASNs (${info.source})\n`)
      } finally {
        await database.close()
      }
      deps.done(0)
    })
}
