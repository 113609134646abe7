// Where a Chromium for the e2e tests lives: $RLWATCH_CHROMIUM, else Debian's /usr/bin/chromium, else none.
import { existsSync } from 'node:fs';

export function findChromium() {
  const candidates = [process.env.RLWATCH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => p && existsSync(p)) ?? null;
}
