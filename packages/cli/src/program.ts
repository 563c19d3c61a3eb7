import { access } from 'node:fs/promises'
import { basename } from 'node:path'
import { DataDirLockedError, errorText } from '@kcore/db'
import { type IpVersion, parseSnapshotFileName } from '@kcore/engine'
import {
  type Config,
  ConfigError,
  type ConfigFlags,
  createLogger,
  loadConfig,
  openStores,
  seedEmptyStores,
} from '@kcore/service'
import { ingestFile, isCalendarDate, KcoreConfigError } from '@kcore/store'
import { Command, CommanderError, Option } from 'commander'
import pkg from '../package.json' with { type: 'json' }
import { runBackfill } from './backfill.js'
import { addExportCommand } from './export.js'
import { addNamesCommand } from './names.js'
import { assertPortFree } from './port-check.js'
import { runServer } from './serve.js'
import { UsageError } from './usage-error.js'

/** Exit codes of the `kcore` command. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const

/** Where the command reads its environment and writes its output. */
export interface CliIo {
  env: Record<string, string | undefined>
  stdout: { isTTY?: boolean; write(text: string): unknown }
  stderr: { write(text: string): unknown }
  /**
   * The command line that runs this command again (`bin.ts` gives it): `serve` seeds a fresh
   * embedded data directory in such a child `kcore seed`. Without it, `serve` seeds in-process.
   */
  self?: readonly string[]
}

const IP_VERSIONS = ['ipv4', 'ipv6', 'both'] as const
const versionsOf = (v: (typeof IP_VERSIONS)[number]): IpVersion[] =>
  v === 'both' ? ['ipv4', 'ipv6'] : [v]

function databaseOptions(command: Command): Command {
  return command
    .option('--database-url <url>', 'PostgreSQL URL (env DATABASE_URL); default: embedded PGlite')
    .option('--data-dir <dir>', 'PGlite data directory (env KCORE_DATA_DIR)', undefined)
    .option('--log-level <level>', 'debug | info | warn | error | silent (env KCORE_LOG_LEVEL)')
}

function configFrom(io: CliIo, opts: Record<string, unknown>): Config {
  const flags: ConfigFlags = {}
  for (const [key, value] of Object.entries(opts))
    if (value !== undefined) flags[key as keyof Config] = value
  return loadConfig(io.env, flags)
}

/**
 * Every file must exist, checked before any work (and before a database is created). A missing
 * file is a failure (exit 1), as any unreadable file, not a usage error.
 */
async function assertFilesExist(files: string[]): Promise<void> {
  for (const file of files) {
    try {
      await access(file)
    } catch {
      throw new Error(`${file}: no such file`)
    }
  }
}

/**
 * Names the file an error came from. The error keeps its class: the exit code is chosen from it.
 */
function inFile(file: string, error: unknown): unknown {
  if (error instanceof Error && !error.message.includes(file))
    error.message = `${file}: ${error.message}`
  return error
}

/** Every file's IP version and date must come from its name or a flag, checked before any work. */
function assertSnapshotNamed(file: string, ipVersion?: string, date?: string): void {
  const info = parseSnapshotFileName(basename(file))
  const missing = [
    !ipVersion && !info?.ipVersion && '--ip-version ipv4|ipv6',
    !date && !info?.date && '--date YYYY-MM-DD',
  ].filter(Boolean)
  if (missing.length > 0)
    throw new UsageError(
      `cannot tell the snapshot of ${file} from its name (CAIDA names look like ` +
        `20240101.as-rel.txt.bz2 or 20220601.as-rel.v6-stable.txt.bz2): give ${missing.join(' and ')}`,
    )
}

function buildProgram(io: CliIo, done: (code: number) => void): Command {
  const program = new Command('kcore')
    .description('AS k-core trends and calendar events: one service, two JSON APIs.')
    .version(pkg.version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)')

  databaseOptions(
    program
      .command('serve')
      .description('Start the HTTP server (what `pnpm start` runs).')
      .option('-p, --port <port>', 'port (env PORT, default 8080)')
      .option('--host <host>', 'interface (env HOST, default 0.0.0.0)')
      .option(
        '--public-url <url>',
        'origin of every absolute link (env KCORE_PUBLIC_URL, default http://localhost:PORT)',
      )
      .option('--provider-url <url>', 'data provider base URL (env KCORE_PROVIDER_URL)')
      .option('--schedule <cron>', 'five-field cron, UTC (env KCORE_SCHEDULE, default "0 6 * * *")')
      .option(
        '--no-scheduler-enabled',
        'disable the update scheduler (env KCORE_SCHEDULER_ENABLED=false)',
      )
      .option(
        '--no-seed',
        'do not seed sample data into an empty embedded database (env KCORE_SEED=false)',
      ),
  ).action(async (opts) => {
    // Commander sets negatable flags to true when absent; only an explicit --no-* counts.
    if (opts.schedulerEnabled === true) opts.schedulerEnabled = undefined
    if (opts.seed === true) opts.seed = undefined
    const config = configFrom(io, opts)
    await assertPortFree(config.host, config.port)
    await runServer(config, { self: io.self })
    done(EXIT.ok)
  })

  databaseOptions(
    program
      .command('seed')
      .description('Load the sample data into empty stores (what `serve` does on a first start).'),
  ).action(async (opts) => {
    const config = configFrom(io, opts)
    const { database, kcore, cal } = await openStores(config)
    try {
      const log = createLogger(config.logLevel)
      const { seedDir, seedNames } = config
      await seedEmptyStores({ kcore, cal }, { seedDir, seedNames, now: new Date(), log })
    } finally {
      await database.close()
    }
    done(EXIT.ok)
  })

  databaseOptions(
    program.command('migrate').description('Create or update the database tables of both APIs.'),
  ).action(async (opts) => {
    const { database } = await openStores(configFrom(io, opts))
    await database.close()
    io.stdout.write('migrations applied\n')
    done(EXIT.ok)
  })

  databaseOptions(
    program
      .command('ingest')
      .description(
        'Ingest local CAIDA AS-relationship files (IP version and date from the file name).',
      )
      .argument('<files...>', 'CAIDA files, e.g. 20240101.as-rel.txt.bz2')
      .addOption(
        new Option('--ip-version <version>', 'override the IP version').choices(['ipv4', 'ipv6']),
      )
      .option('--date <YYYY-MM-DD>', 'override the snapshot date (one file only)')
      .option(
        '--allow-implausible',
        "store a file under 25% of its stored neighbours' AS count (never an empty one)",
      ),
  ).action(async (files: string[], opts) => {
    const { ipVersion, date, allowImplausible, ...rest } = opts
    if (date !== undefined && files.length !== 1)
      throw new UsageError('--date needs exactly one FILE')
    if (date !== undefined && !isCalendarDate(date))
      throw new UsageError(`--date must be a real date written YYYY-MM-DD (got ${date})`)
    await assertFilesExist(files)
    for (const file of files) assertSnapshotNamed(file, ipVersion, date)
    const { database, kcore } = await openStores(configFrom(io, rest))
    try {
      for (const file of files) {
        const info = await ingestFile(kcore, file, {
          ipVersion,
          date,
          allowImplausible: allowImplausible === true,
        }).catch((error: unknown) => {
          throw inFile(file, error)
        })
        io.stdout.write(
          `${file}: ${info.ipVersion} ${info.date}, ${info.asns} ASes, max shell ${info.maxShell}\n`,
        )
      }
    } finally {
      await database.close()
    }
    done(EXIT.ok)
  })

  databaseOptions(
    program
      .command('backfill')
      .description('Ingest every snapshot the provider lists that is not stored yet.')
      .option('--from <YYYY-MM>', 'only snapshots from this month on')
      .addOption(
        new Option('--ip-version <version>', 'which IP version')
          .choices(IP_VERSIONS)
          .default('both'),
      )
      .option('--provider-url <url>', 'data provider base URL (env KCORE_PROVIDER_URL)'),
  ).action(async (opts) => {
    const { from, ipVersion, ...rest } = opts
    if (from !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(from))
      throw new UsageError('--from must be YYYY-MM')
    const ok = await runBackfill(
      configFrom(io, rest),
      { ipVersions: versionsOf(ipVersion), from: from ? `${from}-01` : undefined },
      io.stdout,
    )
    done(ok ? EXIT.ok : EXIT.failure)
  })

  addNamesCommand(program, {
    stdout: io.stdout,
    databaseOptions,
    assertFilesExist,
    config: (opts) => configFrom(io, opts),
    done,
  })
  addExportCommand(program, {
    stdout: io.stdout,
    databaseOptions,
    config: (opts) => configFrom(io, opts),
    done,
  })
  return program
}

/**
 * Runs the `kcore` command line and resolves with its exit code: 0 ok, 1 failure, 2 usage
 * (bad flags, arguments or configuration).
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok
  const program = buildProgram(io, (c) => {
    code = c
  })
  try {
    await program.parseAsync(argv, { from: 'user' })
    return code
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version "fail" with exit code 0; everything else commander raises is usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage
    }
    if (
      error instanceof ConfigError ||
      error instanceof UsageError ||
      error instanceof KcoreConfigError ||
      error instanceof DataDirLockedError
    ) {
      io.stderr.write(`kcore: ${error.message}\n`)
      return EXIT.usage
    }
    // errorText: a thrown non-Error (Emscripten throws plain objects) still reads as a line.
    io.stderr.write(`kcore: ${errorText(error).split('\n')[0]}\n`)
    return EXIT.failure
  }
}
