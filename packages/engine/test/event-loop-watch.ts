/**
 * Runs `work` while a 10 ms timer samples the thread's event loop and the process's RSS: the
 * longest gap between two ticks (how long the thread answering requests was held) and how far
 * RSS grew over its value at the start (worker threads belong to this process).
 */
export async function watchEventLoop<T>(
  work: () => Promise<T>,
): Promise<{ value: T; gap: number; growth: number }> {
  const start = process.memoryUsage.rss()
  let rss = start
  let last = performance.now()
  let gap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last)
    last = now
    rss = Math.max(rss, process.memoryUsage.rss())
  }, 10)
  try {
    const value = await work()
    return { value, growth: rss - start, gap: Math.max(gap, performance.now() - last) }
  } finally {
    clearInterval(timer)
  }
}
