import { PGlite } from '@electric-sql/pglite'

try {
  const pg = await PGlite.create({
    dataDir: process.argv[2]!,
    debug: 1,
    startParams: [...PGlite.defaultStartParams, '-c', 'wal_init_zero=off'],
  })
  console.log('opened', (await pg.query('select count(*) from filling')).rows)
} catch (e) {
  console.log('caught', String(e).slice(0, 200))
}
