import { execFileSync } from 'node:child_process'

/**
 * The first of `commands` that runs `args` successfully, or undefined. A check against an
 * external tool (bzcat, NetworkX) is skipped where the tool is missing, with the reason printed;
 * in CI (`CI=true`) a missing tool throws instead, so the check fails the run rather than vanish.
 */
export function externalTool(
  what: string,
  commands: readonly string[],
  args: readonly string[],
  install: string,
): string | undefined {
  for (const command of commands) {
    try {
      execFileSync(command, [...args], { stdio: 'ignore' })
      return command
    } catch {}
  }
  const reason = `${what} not found (tried ${commands.join(', ')}): ${install}`
  if (process.env.CI === 'true') throw new Error(`CI needs ${reason}`)
  console.warn(`Skipped: ${reason}`)
  return undefined
}
