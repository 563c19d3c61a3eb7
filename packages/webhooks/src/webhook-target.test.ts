import { BlockList } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { WebhookError } from './webhook-error.js'
import {
  checkWebhookTarget,
  isPublicAddress,
  MAX_URL_LENGTH,
  parseWebhookUrl,
} from './webhook-target.js'

const runs = Number(process.env.FUZZ_RUNS ?? 300)

/** Field and code of what `fn` throws. */
async function refusal(
  fn: () => unknown,
): Promise<{ code: string; field?: string; message: string }> {
  try {
    await fn()
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError)
    const { code, field, message } = error as WebhookError
    return { code, field, message }
  }
  throw new Error('expected a refusal')
}

/**
 * The oracle: the IANA special-purpose ranges written out independently of ipaddr.js
 * (node's BlockList). Every address inside must be refused.
 */
const special = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  special.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fe80::', 10],
  ['fc00::', 7],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  special.addSubnet(net, prefix, 'ipv6')

/** IPv4 addresses biased to the edges of the special ranges. */
const edgyIpv4 = fc.oneof(
  fc.ipV4(),
  fc
    .tuple(
      fc.constantFrom(
        0,
        9,
        10,
        11,
        100,
        126,
        127,
        128,
        169,
        172,
        192,
        198,
        203,
        223,
        224,
        239,
        240,
        255,
      ),
      fc.constantFrom(0, 1, 15, 16, 31, 32, 63, 64, 127, 128, 167, 168, 169, 254, 255),
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0, 1, 254, 255),
    )
    .map((parts) => parts.join('.')),
)

describe('isPublicAddress', () => {
  it('refuses every IPv4 address in a special-purpose range', () => {
    fc.assert(
      fc.property(edgyIpv4, (address) => {
        if (special.check(address, 'ipv4')) expect(isPublicAddress(address)).toBe(false)
      }),
      { numRuns: runs },
    )
  })

  it('refuses a special IPv4 address however it is wrapped in IPv6 (mapped)', () => {
    fc.assert(
      fc.property(edgyIpv4, (address) => {
        expect(isPublicAddress(`::ffff:${address}`)).toBe(isPublicAddress(address))
      }),
      { numRuns: runs },
    )
  })

  it('refuses every IPv6 address in a special-purpose range', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        if (special.check(address, 'ipv6')) expect(isPublicAddress(address)).toBe(false)
      }),
      { numRuns: runs },
    )
  })

  it('accepts public addresses and refuses what is no address', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111'])
      expect(isPublicAddress(address)).toBe(true)
    for (const address of ['', 'localhost', '127.0.0.1.', '::ffff:10.0.0.1', 'fe80::1%eth0'])
      expect(isPublicAddress(address)).toBe(false)
  })
})

describe('parseWebhookUrl', () => {
  it('accepts http and https URLs and normalizes them', () => {
    expect(parseWebhookUrl('https://Example.COM/hook').href).toBe('https://example.com/hook')
    expect(parseWebhookUrl('http://example.com:8080/a?b=c').href).toBe(
      'http://example.com:8080/a?b=c',
    )
  })

  it.each([
    ['not a url', 'not an absolute URL'],
    ['/relative', 'not an absolute URL'],
    ['ftp://example.com/', 'http or https'],
    ['javascript:alert(1)', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['https://user:pw@example.com/', 'user name or password'],
    ['https://user@example.com/', 'user name or password'],
    [`https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`, 'longer than'],
  ])('refuses %s', async (url, reason) => {
    const error = await refusal(() => parseWebhookUrl(url))
    expect(error).toMatchObject({ code: 'invalid_input', field: 'url' })
    expect(error.message).toContain(reason)
  })
})

describe('checkWebhookTarget', () => {
  const publicLookup = async () => [{ address: '93.184.216.34' }]

  it.each([
    'http://127.0.0.1/',
    'http://2130706433/', // 127.0.0.1 as one number: the URL parser normalizes it first
    'http://0x7f.1/',
    'http://[::1]/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://100.64.0.1/',
  ])('refuses the literal non-public address of %s', async (url) => {
    const error = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl(url), { allowPrivate: false, lookup: publicLookup }),
    )
    expect(error).toMatchObject({ code: 'invalid_input', field: 'url' })
    expect(error.message).toContain('non-public')
  })

  it('refuses a host name when any of its addresses is not public', async () => {
    const lookup = async () => [{ address: '93.184.216.34' }, { address: '10.0.0.7' }]
    const error = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl('https://rebind.example/'), {
        allowPrivate: false,
        lookup,
      }),
    )
    expect(error.message).toContain('10.0.0.7')
  })

  it('refuses a host name that does not resolve', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
    }
    const error = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl('https://nowhere.example/'), {
        allowPrivate: false,
        lookup,
      }),
    )
    expect(error).toMatchObject({ field: 'url' })
    expect(error.message).toContain('does not resolve')
    const empty = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl('https://nowhere.example/'), {
        allowPrivate: false,
        lookup: async () => [],
      }),
    )
    expect(empty.message).toContain('does not resolve')
  })

  it('resolves localhost with the system resolver and refuses it', async () => {
    const error = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl('http://localhost:9/'), { allowPrivate: false }),
    )
    expect(error.message).toMatch(/non-public|does not resolve/)
  })

  it('accepts public hosts, and anything when private targets are allowed', async () => {
    await checkWebhookTarget(parseWebhookUrl('https://example.com/'), {
      allowPrivate: false,
      lookup: publicLookup,
    })
    await checkWebhookTarget(parseWebhookUrl('http://127.0.0.1:9/'), { allowPrivate: true })
    await checkWebhookTarget(parseWebhookUrl('http://[2606:4700:4700::1111]/'), {
      allowPrivate: false,
    })
  })
})
