/**
 * Shares reads of a changing value (a data revision, say) between concurrent callers without ever answering older than the call:
 * a caller joins the next read that starts after it asked, never one already sent (that one may
 * have been answered before a commit the caller must see). So at most one read is in flight and
 * one waits, and N concurrent callers cost two round trips instead of N, each still seeing every
 * commit that finished before it asked.
 */
export function sharedReads<T>(read: () => Promise<T>): () => Promise<T> {
  let sent: Promise<T> | undefined
  let waiting: Promise<T> | undefined
  const send = () => {
    const current = read().finally(() => {
      if (sent === current) sent = undefined
    })
    sent = current
    return current
  }
  return () => {
    if (!sent) return send()
    waiting ??= sent
      .catch(() => {})
      .then(() => {
        waiting = undefined
        return send()
      })
    return waiting
  }
}
