import { describe, expect, it } from 'vitest'
import { listResponse, pageUrl } from './list-response.js'

const url = new URL('http://h/cal/events/v1/events?search=jazz&page=2&per_page=2')

describe('listResponse', () => {
  it('builds the envelope, links and headers', async () => {
    const res = listResponse({
      key: 'events',
      kind: 'event',
      items: [1, 2],
      total: 5,
      page: 2,
      perPage: 2,
      url,
      syncToken: 't',
    })
    expect(res.headers.get('X-CAL-Total')).toBe('5')
    expect(res.headers.get('X-TEC-TotalPages')).toBe('3')
    expect(res.headers.get('X-WP-Total')).toBe('5')
    expect(res.headers.get('X-WP-TotalPages')).toBe('3')
    expect(res.headers.get('X-CAL-Sync-Token')).toBe('t')
    expect(res.headers.get('Link')).toBe(
      '<http://h/cal/events/v1/events?search=jazz&per_page=2>; rel="prev", <http://h/cal/events/v1/events?search=jazz&per_page=2&page=3>; rel="next"',
    )
    expect(await res.json()).toEqual({
      events: [1, 2],
      rest_url: 'http://h/cal/events/v1/events?search=jazz&per_page=2&page=2',
      next_rest_url: 'http://h/cal/events/v1/events?search=jazz&per_page=2&page=3',
      previous_rest_url: 'http://h/cal/events/v1/events?search=jazz&per_page=2',
      total: 5,
      total_pages: 3,
    })
  })

  it('answers an empty first page and refuses an empty later one', async () => {
    const first = listResponse({
      key: 'tags',
      kind: 'tag',
      items: [],
      total: 0,
      page: 1,
      perPage: 10,
      url,
      syncToken: 't',
    })
    expect(await first.json()).toMatchObject({ tags: [], total: 0, total_pages: 0 })
    expect(() =>
      listResponse({
        key: 'tags',
        kind: 'tag',
        items: [],
        total: 3,
        page: 2,
        perPage: 10,
        url,
        syncToken: 't',
      }),
    ).toThrowError(expect.objectContaining({ status: 404, code: 'term-archive-page-not-found' }))
  })

  it('drops page=1 from links', () => {
    expect(pageUrl(url, 1)).toBe('http://h/cal/events/v1/events?search=jazz&per_page=2')
  })
})
