// `npm run readme-figures [-- --out DIR]`: renders the README's figures with `rlwatch export` (demo run + a corpus run).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, builtCli, root } from './lib/build.js';

/** Where the README's figures live (committed), and the size they are drawn at. */
export const FIGURES_DIR = join(root, 'docs', 'figures');
export const FIGURE_SIZE = { width: 1200, height: 675 };

/** The exports, as `rlwatch export` arguments after PATH and --out: what the README shows and this script runs. */
export const EXPORTS = [
  {
    name: 'demo',
    path: null, // the demo run, written first into a temporary folder
    args: ['--png', '--tags', '^(Train/Loss|reward|approx_kl|entropy)$', '--smoothing', '0.6'],
  },
  {
    name: 'sb3-ppo',
    path: join(root, 'test', 'fixtures', 'tfevents', '0pk0__rl4avs'),
    args: ['--png', '--tags', '^(rollout/ep_rew_mean|train/(loss|approx_kl|entropy_loss))$'],
  },
  {
    // Two W&B runs (wandb's own fixtures) compared on the tag they share, in the dark theme.
    name: 'wandb-compare-dark',
    path: join(root, 'test', 'fixtures', 'wandb', 'wandb__wandb'),
    args: ['--png', '--runs', '^leet-workspace-multi/', '--tags', '^train/loss$', '--theme', 'dark'],
  },
];

/** The PNG files below `dir`, sorted, as absolute paths. */
export function pngsUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => join(dir, f));
}

function rlwatch(args) {
  const r = spawnSync(process.execPath, [builtCli, ...args], { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`rlwatch ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Renders every figure of EXPORTS into `out/NAME/…`; returns the files written (absolute paths). */
export function renderReadmeFigures(out = FIGURES_DIR) {
  const demo = mkdtempSync(join(tmpdir(), 'rlwatch-readme-demo-'));
  try {
    // A short, fast demo run: the same seed draws the same curves every time.
    rlwatch(['demo', demo, '--steps', '400', '--rate', '1000']);
    const written = [];
    for (const e of EXPORTS) {
      const dir = join(out, e.name);
      rmSync(dir, { recursive: true, force: true });
      const size = ['--width', String(FIGURE_SIZE.width), '--height', String(FIGURE_SIZE.height)];
      // Not --json: that flag also writes the JSON history, and only figures belong here.
      rlwatch(['export', e.path ?? demo, '--out', dir, ...e.args, ...size]);
      written.push(...pngsUnder(dir));
    }
    return written;
  } finally {
    rmSync(demo, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (buildIfStale() !== 0) process.exit(1);
  const at = process.argv.indexOf('--out');
  const files = renderReadmeFigures(at > 0 ? process.argv[at + 1] : FIGURES_DIR);
  for (const f of files) process.stdout.write(`${f}\n`);
}
