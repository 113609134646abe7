// The `rlwatch` executable: runs main() and maps errors to exit statuses (usage: 2, with one line on stderr).

import '../core/heap-flags';
import { main } from './main';
import { UsageError } from './usage';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`rlwatch: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`rlwatch: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
