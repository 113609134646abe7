// Test helper: Debian's Chromium driven by playwright-core, with the flags this sandbox needs (playwright
// gives each launch a fresh temporary profile).

import { chromium, type Browser } from 'playwright-core';
import { findChromium } from './chromium-path.js';

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath)
    throw new Error('no Chromium found: apt-get install -y chromium, or set RLWATCH_CHROMIUM');
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}
