// Dispatches `rlwatch` subcommands; returns the exit status (usage errors are thrown as UsageError). Each command's
// module is loaded only when it runs: `--help` and `inspect` never load the canvas, the sampler or the HTTP server.

import { appVersion } from './paths';
import { HELP, UsageError } from './usage';

type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  open: async () => (await import('./open-command')).runOpen,
  serve: async () => (await import('./serve-command')).runServe,
  agent: async () => (await import('./agent-command')).runAgent,
  demo: async () => (await import('./demo-command')).runDemo,
  inspect: async () => (await import('./inspect-command')).runInspect,
  watch: async () => (await import('./watch-command')).runWatch,
  export: async () => (await import('./export-command')).runExport,
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
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!load) throw new UsageError(`unknown command '${command}' (try: rlwatch --help)`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  return (await load())(rest);
}
