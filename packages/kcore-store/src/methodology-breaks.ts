/**
 * Known breaks in CAIDA's AS-relationship data: dates where the files change for a reason
 * other than the Internet (a new inference method, another input), so a jump in an AS's shell
 * index there may be the data's, not the AS's. Answered in `/api/summary` as `breaks`.
 *
 * Sources, and how sure each entry is:
 * - Observed in the files themselves, as recorded in `shared/data/caida/SOURCES.md` (the
 *   provenance of the sample data): the clique header's kind, the `# step` lines and the link
 *   counts of the yearly serial-1 files. These are facts of the files; the reason given for
 *   them is CAIDA's documented method (Luckie et al., "AS Relationships, Customer Cones, and
 *   Validation", IMC 2013, the algorithm behind serial-1) as far as it explains them.
 * - Documented by CAIDA on the dataset page (https://www.caida.org/catalog/datasets/as-relationships/):
 *   serial-2 (from 2015-12) adds links inferred from multilateral peering (`mlp`) and
 *   traceroute (`ark`) data beside BGP.
 * Nothing here is guessed from a chart: an entry needs a source a reader can open.
 *
 * Bump {@link DATA_BREAKS_VERSION} whenever an entry is added, changed or removed, so a client
 * that caches the table knows.
 */

/** One break: its date, the IP version it concerns (both when absent), what and where from. */
export interface DataBreak {
  /** First snapshot date with the change, `YYYY-MM-DD`. */
  date: string
  ip_version?: 'ipv4' | 'ipv6'
  /** What changed, in a sentence. */
  what: string
  /** Where a reader can check it. */
  source: string
}

/** The table's version: bumped on every change of {@link DATA_BREAKS}. */
export const DATA_BREAKS_VERSION = 1

const DATASET = 'https://www.caida.org/catalog/datasets/as-relationships/'
const SOURCES = 'shared/data/caida/SOURCES.md (the sample data provenance)'

/** The known breaks, oldest first. */
export const DATA_BREAKS: readonly DataBreak[] = Object.freeze([
  {
    date: '2015-12-01',
    ip_version: 'ipv4',
    what:
      'First serial-2 release: links inferred from multilateral peering (mlp) and traceroute ' +
      '(ark) beside BGP, so serial-2 files have more links than serial-1 of the same date ' +
      '(461,337 against about 210,000 in the 2016-01 serial-1 file).',
    source: `${DATASET}; ${SOURCES}`,
  },
  {
    date: '2017-01-01',
    ip_version: 'ipv4',
    what:
      'The clique header changes from "inferred clique" to "input clique" (and back in ' +
      '2018-2019): the tier-1 clique was given to the inference, not inferred.',
    source: SOURCES,
  },
  {
    date: '2019-01-01',
    ip_version: 'ipv4',
    what:
      'The inference steps ("# step 1" to "# step 8") appear in the header and links grow ' +
      '22% in a year (261,340 to 318,997) while ASes grow 6%: more vantage points and a ' +
      'revised inference, not a denser Internet alone.',
    source: SOURCES,
  },
  {
    date: '2020-01-01',
    ip_version: 'ipv4',
    what: 'The clique is given as "input clique" from here on.',
    source: SOURCES,
  },
  {
    date: '2023-01-01',
    ip_version: 'ipv4',
    what:
      'Links grow 33% in a year (379,981 to 505,927) while ASes grow 2%, the links grouped by ' +
      'inference step; CAIDA also re-issued this date with 380,537 links.',
    source: SOURCES,
  },
] satisfies DataBreak[])

/** The table as `/api/summary` answers it. */
export function dataBreaks(): { version: number; items: readonly DataBreak[] } {
  return { version: DATA_BREAKS_VERSION, items: DATA_BREAKS }
}
