import { describe, expect, it } from 'vitest'
import { directoryIndexFileNames } from './directory-index.js'

describe('directoryIndexFileNames', () => {
  it('takes names from href attributes, not from the truncated link text', () => {
    const html = `<html><body><table>
<tr><th><a href="?C=N;O=D">Name</a></th></tr>
<tr><td><a href="/datasets/as-relationships/">Parent Directory</a></td></tr>
<tr><td><a href="20130201.as-rel.txt.bz2">20130201.as-rel.t..&gt;</a></td></tr>
<tr><td><a HREF='20220601.as-rel.v6-stable.txt.bz2'>20220601.as-rel.v..&gt;</a></td></tr>
<tr><td><a href=20240101.as-rel.txt.bz2>x</a></td></tr>
<tr><td><a href="https://mirror.example/serial-1/20240201.as-rel.txt.bz2?download=1#top">y</a></td></tr>
<tr><td><a href="with%20space.txt">z</a></td></tr>
</table></body></html>`
    expect(directoryIndexFileNames(html)).toEqual([
      '20130201.as-rel.txt.bz2',
      '20220601.as-rel.v6-stable.txt.bz2',
      '20240101.as-rel.txt.bz2',
      '20240201.as-rel.txt.bz2',
      'with space.txt',
    ])
  })
})
