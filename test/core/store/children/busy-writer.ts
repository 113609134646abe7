// A child process that writes to the store as fast as it can, until it is killed (crash-recovery test).

import { openStore } from '../../../../src/core/store';

const path = process.argv[2]!;
const store = openStore({ path });
store.setSetting('settings', { theme: 'dark' });
let t = 0;
process.stdout.write('writing\n');
for (;;) {
  store.appendSystemSamples(Array.from({ length: 200 }, () => ({ t: ++t, snapshot: { cpuPct: t % 100 } })));
  if (t % 2000 === 0) store.touchRun(`/runs/r${t}`, t);
}
