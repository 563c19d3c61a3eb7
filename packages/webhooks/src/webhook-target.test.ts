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
): Promise<{ code: string; field?: string | undefined; message: string }> {
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

/** The two 16-bit words of an IPv4 address, as hex. */
const words = (v4: string): [string, string] => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number]
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
}
/** `word` with every bit flipped (Teredo stores its client's address so). */
const flipped = (word: string) => (0xffff ^ Number.parseInt(word, 16)).toString(16)
const hexWord = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
/** A public IPv4 address, by ipaddr.js's classes (the verdict an embedded form must share). */
const publicIpv4 = fc.ipV4().filter((v4) => isPublicAddress(v4))

/**
 * Every IPv6 form that names an IPv4 address, in several spellings: compatible (`::a.b.c.d`),
 * mapped (`::ffff:`), translated (`::ffff:0:`), NAT64 (`64:ff9b::/96`), 6to4 (`2002::/16`, any
 * subnet and interface) and Teredo (`2001::/32`, the server's address in bits 32-63 and the
 * client's flipped in the last 32; the other one public).
 */
const embeddingForms = (v4: string) => {
  const [hi, lo] = words(v4)
  return fc
    .constantFrom(
      `::${v4}`,
      `::${hi}:${lo}`,
      `0:0:0:0:0:0:${v4}`,
      `::ffff:${v4}`,
      `::FFFF:${hi.toUpperCase()}:${lo}`,
      `::ffff:0:${v4}`,
      `64:ff9b::${v4}`,
      `64:ff9b::${hi}:${lo}`,
      `0064:FF9B:0000:0000:0000:0000:${hi}:${lo}`,
    )
    .chain((form) =>
      fc.oneof(
        fc.constant(form),
        fc
          .tuple(hexWord, hexWord, hexWord, hexWord, hexWord)
          .map(([s, a, b, c, d]) => `2002:${hi}:${lo}:${s}:${a}:${b}:${c}:${d}`),
        fc
          .tuple(publicIpv4, hexWord, hexWord)
          .map(
            ([other, flags, port]) =>
              `2001:0:${hi}:${lo}:${flags}:${port}:${words(other).map(flipped).join(':')}`,
          ),
        fc
          .tuple(publicIpv4, hexWord, hexWord)
          .map(
            ([other, flags, port]) =>
              `2001::${words(other).join(':')}:${flags}:${port}:${flipped(hi)}:${flipped(lo)}`,
          ),
      ),
    )
}

describe('isPublicAddress of the IPv6 forms that embed an IPv4 address', () => {
  it('judges each form by the IPv4 address it names, private or public', () => {
    fc.assert(
      fc.property(
        fc.oneof(edgyIpv4, publicIpv4).chain((v4) => fc.tuple(fc.constant(v4), embeddingForms(v4))),
        ([v4, form]) => {
          expect(isPublicAddress(form)).toBe(isPublicAddress(v4))
        },
      ),
      { numRuns: runs },
    )
  })

  it.each([
    '::127.0.0.1',
    '::7f00:1',
    '::10.0.0.1',
    '::169.254.169.254',
    '::a9fe:a9fe',
    '::ffff:0:127.0.0.1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    // Teredo: client 127.0.0.1 (flipped: 80ff:fffe) behind a public server.
    '2001:0:808:808::80ff:fffe',
    // Teredo: a private server.
    '2001:0:a00:1::f7f7:f7f7',
  ])('refuses %s, which names a non-public IPv4 address', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1', '2001:0:808:808::f7f7:f7f7'])(
    'accepts %s, which names a public IPv4 address',
    (address) => {
      expect(isPublicAddress(address)).toBe(true)
    },
  )

  it('refuses the local-use NAT64 prefix 64:ff9b:1::/48, which is never globally reachable', () => {
    fc.assert(
      fc.property(fc.tuple(hexWord, hexWord, hexWord, hexWord, hexWord), (rest) => {
        expect(isPublicAddress(`64:ff9b:1:${rest.join(':')}`)).toBe(false)
      }),
      { numRuns: runs },
    )
    expect(isPublicAddress('64:ff9b:1::808:808')).toBe(false)
  })

  it('refuses IPv6 outside the global unicast block 2000::/3', () => {
    for (const address of ['100::1', '4000::1', '::2:0:0:1', '64:ff9c::808:808', 'e000::1'])
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

/**
 * An IPv4 address as a URL host may spell it (the WHATWG URL parser's IPv4 forms): one to four
 * parts, the last holding the remaining bytes, each part decimal, octal (`0…`) or hex (`0x…`).
 */
const ipv4Spelling = (v4: string) => {
  const bytes = v4.split('.').map(Number)
  return fc
    .tuple(
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.constantFrom('dec', 'oct', 'hex', 'HEX'), { minLength: 4, maxLength: 4 }),
    )
    .map(([count, radixes]) => {
      const parts = bytes.slice(0, count - 1)
      parts.push(bytes.slice(count - 1).reduce((n, b) => n * 256 + b, 0))
      return parts
        .map((n, i) => {
          const radix = radixes[i]
          if (radix === 'oct') return `0${n.toString(8)}`
          if (radix === 'hex') return `0x${n.toString(16)}`
          if (radix === 'HEX') return `0X${n.toString(16).toUpperCase()}`
          return String(n)
        })
        .join('.')
    })
}

/** A URL naming `v4` literally: an IPv4 spelling, or an IPv6 form that embeds it. */
const urlOf = (v4: string) =>
  fc
    .oneof(
      ipv4Spelling(v4),
      embeddingForms(v4).map((form) => `[${form}]`),
    )
    .chain((host) =>
      fc.constantFrom(`http://${host}/`, `https://${host}:8443/hook?x=1`, `HTTP://${host}:80`),
    )

describe('checkWebhookTarget over literal spellings', () => {
  const noLookup = async () => {
    throw new Error('a literal address is never looked up')
  }

  it('refuses every spelling of a non-public IPv4 address and accepts every one of a public', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(edgyIpv4, publicIpv4).chain((v4) => fc.tuple(fc.constant(v4), urlOf(v4))),
        async ([v4, url]) => {
          const check = checkWebhookTarget(parseWebhookUrl(url), {
            allowPrivate: false,
            lookup: noLookup,
          })
          if (isPublicAddress(v4)) await check
          else await expect(check).rejects.toThrow(/non-public/)
        },
      ),
      { numRuns: runs },
    )
  })

  it.each([
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::10.0.0.1]/',
    'http://[::169.254.169.254]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://0177.0.0.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://0251.0376.0251.0376/', // 169.254.169.254 in octal
  ])('refuses %s', async (url) => {
    const error = await refusal(() =>
      checkWebhookTarget(parseWebhookUrl(url), { allowPrivate: false, lookup: noLookup }),
    )
    expect(error.message).toContain('non-public')
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
