/**
 * File names linked from a directory-index HTML page (Apache, nginx, …), taken from the `href`
 * attributes (the visible link text may be truncated). Query strings, fragments and folder
 * parts are dropped; percent-escapes and `&amp;` are decoded.
 */
export function directoryIndexFileNames(html: string): string[] {
  const names: string[] = []
  for (const match of html.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi)) {
    let href = (match[1] ?? match[2] ?? match[3] ?? '').replaceAll('&amp;', '&')
    href = href.replace(/[?#].*$/, '')
    const name = href.slice(href.lastIndexOf('/') + 1)
    if (!name) continue
    try {
      names.push(decodeURIComponent(name))
    } catch {
      names.push(name)
    }
  }
  return names
}
