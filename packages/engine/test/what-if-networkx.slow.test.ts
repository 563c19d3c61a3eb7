import { describeWhatIfNetworkx } from './what-if-networkx.js'

// One mid-size file here (`pnpm test:all`); the 2024 file and more in what-if-networkx.full.test.ts.
describeWhatIfNetworkx([['20130201.as-rel.txt.bz2', 1]])
