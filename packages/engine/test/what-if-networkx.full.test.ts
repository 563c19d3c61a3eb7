import { describeWhatIfNetworkx } from './what-if-networkx.js'

// The largest serial-1 file, a serial-2 and an IPv6 one (`pnpm test:full`); a mid-size file
// runs in `pnpm test:all` (what-if-networkx.slow.test.ts).
describeWhatIfNetworkx([
  ['20240801.as-rel.txt.bz2', 2],
  ['20151201.as-rel2.txt.bz2', 2],
  ['20220601.as-rel.v6-stable.txt.bz2', 2],
])
