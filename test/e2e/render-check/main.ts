// `npm run check:runs -- DIR [DIR…]`: the render check on a user's own run folders (or the corpus); exit 1 on any failure.

import { resolve } from 'node:path';
import { launchChromium } from '../browser';
import { checkRuns, foldersOf, reportLine } from './check-runs';
import { ARTIFACTS, saveResults } from './artifacts';

const dirs = process.argv.slice(2).filter((a) => a !== '--');
if (dirs.length === 0) {
  process.stderr.write(
    'usage: npm run check:runs -- DIR [DIR…]   (a folder of runs, or the corpus folder)\n',
  );
  process.exit(2);
}
const browser = await launchChromium();
let failed = 0;
try {
  const results = await checkRuns(
    browser,
    dirs.flatMap((d) => foldersOf(resolve(d))),
    ARTIFACTS,
    (r) => process.stdout.write(`${reportLine(r)}\n`),
  );
  failed = results.filter((r) => r.failures.length > 0).length;
  const saved = saveResults('results', results);
  process.stdout.write(
    `${results.length} runs checked, ${failed} failed; screenshots in ${ARTIFACTS}, details in ${saved}\n`,
  );
} finally {
  await browser.close();
}
process.exit(failed > 0 ? 1 : 0);
