// Dispatches `rlwatch` subcommands; returns the exit status (usage errors are thrown as UsageError).

import { runAgent } from './agent-command';
import { runDemo } from './demo-command';
import { runExport } from './export-command';
import { runInspect } from './inspect-command';
import { runOpen } from './open-command';
import { runServe } from './serve-command';
import { runWatch } from './watch-command';
import { appVersion } from './paths';
import { HELP, UsageError } from './usage';

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  open: runOpen,
  serve: runServe,
  agent: runAgent,
  demo: runDemo,
  inspect: runInspect,
  watch: runWatch,
  export: runExport,
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(appVersion() + '\n');
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`unknown command '${command}' (try: rlwatch --help)`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  return run(rest);
}
