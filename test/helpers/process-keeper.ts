// What a test file may change in its process — environment, working folder, timers, spies, stubbed globals — noted
// now, and a function that puts it all back.
import { vi } from 'vitest';

export function keepProcess(): () => void {
  const env = { ...process.env };
  const cwd = process.cwd();
  return () => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
    Object.assign(process.env, env);
    if (process.cwd() !== cwd) process.chdir(cwd);
  };
}
