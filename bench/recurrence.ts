// Recurrence core (packages/cal-store/src/recurrence): compile, count, nth and byKey over
// windows up to year 9999, for everyday rules and hostile ones. Goal (issue #29): compile under
// 50 ms, each count/nth/byKey under 5 ms after compile, never enumerating the occurrences.
// One run prints the median of BENCH_ROUNDS fresh compiles and of the queries on each.
//
//   pnpm bench:recurrence            (BENCH_ROUNDS=5)

import os from 'node:os'
import { compileRecurrence, RecurrenceError } from '@cal/recurrence'

const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const start = '2026-01-05 10:00:00' // a Monday
const zone = 'Europe/Berlin'
const fromMs = Date.UTC(2026, 0, 1)
const toMs = Date.UTC(9999, 11, 31, 12)
const key9000 = (Date.UTC(9000, 0, 1) / 1000 - Date.UTC(1000, 0, 1) / 1000) / 60

// [name, rules (' | ' between several), first occurrence (a series starts on one)]
const rules: [string, string, string][] = [
  ['weekly', 'FREQ=WEEKLY;BYDAY=MO,WE', start],
  ['daily', 'FREQ=DAILY', start],
  ['daily to 9999', 'FREQ=DAILY;UNTIL=99991231', start],
  ['daily COUNT=1e9', 'FREQ=DAILY;COUNT=1000000000', start],
  ['hourly', 'FREQ=HOURLY;INTERVAL=2', start],
  ['monthly BYSETPOS', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', '2026-01-30 10:00:00'],
  ['monthly 1st Monday', 'FREQ=MONTHLY;BYDAY=1MO', start],
  [
    'yearly BYSETPOS=-366',
    'FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=-366',
    '2028-01-01 10:00:00',
  ],
  ['yearly BYDAY=-53MO', 'FREQ=YEARLY;BYDAY=-53MO', '2029-01-01 10:00:00'],
  ['yearly BYWEEKNO=53', 'FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO', '2026-12-28 10:00:00'],
  ['weekly INTERVAL=7919', 'FREQ=WEEKLY;INTERVAL=7919', start],
  ['daily + yearly/13', 'FREQ=DAILY;BYHOUR=10,12 | FREQ=YEARLY;INTERVAL=13', start],
  [
    '10 daily rules',
    Array.from({ length: 10 }, (_, i) => `FREQ=DAILY;BYHOUR=10,${i + 11}`).join(' | '),
    start,
  ],
  [
    '10 weekly, intervals 1-10',
    Array.from({ length: 10 }, (_, i) => `FREQ=WEEKLY;INTERVAL=${i + 1}`).join(' | '),
    start,
  ],
]

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const time = <T>(f: () => T): [T, number] => {
  const t = performance.now()
  const v = f()
  return [v, performance.now() - t]
}
const ms = (x: number) => x.toFixed(2).padStart(8)

console.log(
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${os.cpus().length} cpus`,
)
console.log(
  `${'rule'.padEnd(22)} ${'compile'.padStart(8)} ${'count'.padStart(8)} ${'nth'.padStart(8)} ${'byKey'.padStart(8)}  occurrences to 9999`,
)
for (const [name, rule, first] of rules) {
  const compile: number[] = []
  const count: number[] = []
  const nth: number[] = []
  const byKey: number[] = []
  let total = 0
  let note = ''
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    try {
      const [r, c] = time(() =>
        compileRecurrence(
          { rules: rule.split(' | ') },
          { start: first, zone, durationSeconds: 3600, allDay: false },
        ),
      )
      compile.push(c)
      const [n, t1] = time(() => r.count(fromMs, toMs))
      total = n
      count.push(t1)
      nth.push(time(() => r.nth(fromMs, Math.floor(n / 2)))[1])
      byKey.push(time(() => r.byKey(key9000 + 600))[1])
    } catch (e) {
      if (!(e instanceof RecurrenceError)) throw e
      note = `refused: ${e.message}`
      compile.push(performance.now() - t)
    }
  }
  console.log(
    `${name.padEnd(22)} ${ms(median(compile))} ${ms(median(count))} ${ms(median(nth))} ${ms(median(byKey))}  ${note || total.toLocaleString('en')}`,
  )
}
