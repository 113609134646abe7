// `npm run package`: validates electron-builder.yml, then builds this host's installers, or says in one line why not.
//
// electron-builder needs Electron's release zip for the target platform (from its cache, or fetched from
// GitHub Releases / ELECTRON_MIRROR). Where it can be neither found nor fetched, packaging stops after the
// schema check with one line and exit status 2 instead of retrying downloads for minutes.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const builderConfigPath = join(root, 'electron-builder.yml');
/** Exit status when this machine cannot package (the configuration itself is valid). */
export const EXIT_CANNOT_PACKAGE = 2;

const requireHere = createRequire(import.meta.url);
const requireFromBuilder = createRequire(requireHere.resolve('app-builder-lib'));

/** electron-builder.yml as an object (parsed with the YAML reader electron-builder itself uses). */
export function loadBuilderConfig(path = builderConfigPath) {
  return requireFromBuilder('js-yaml').load(readFileSync(path, 'utf8'));
}

/** Resolves when electron-builder's own schema check accepts the configuration; rejects with its message. */
export async function validateBuilderConfig(config = loadBuilderConfig()) {
  const { validateConfiguration } = requireHere('app-builder-lib/out/util/config/config.js');
  await validateConfiguration(config, { isEnabled: false, add() {} });
}

export const installedElectronVersion = () =>
  JSON.parse(readFileSync(requireHere.resolve('electron/package.json'), 'utf8')).version;

/** Where @electron/get keeps downloaded zips (ELECTRON_CACHE, else the per-user cache). */
function electronCacheDir(env, platform) {
  if (env.ELECTRON_CACHE) return env.ELECTRON_CACHE;
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'electron');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? homedir(), 'electron', 'Cache');
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'electron');
}

/** Whether the zip is already cached (directly or in one of @electron/get's hashed subfolders). */
function cachedZip(dir, zip) {
  if (!existsSync(dir)) return false;
  if (existsSync(join(dir, zip))) return true;
  return readdirSync(dir, { withFileTypes: true }).some(
    (d) => d.isDirectory() && existsSync(join(dir, d.name, zip)),
  );
}

/** Asks the release server for the zip's headers; resolves to null when reachable, else why not. */
export async function probeUrl(url, timeoutMs = 5000) {
  try {
    const res = await fetch(url, {
      method: 'HEAD',
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return res.ok ? null : `${url} answered HTTP ${res.status}`;
  } catch (err) {
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.name ?? String(err);
    return `${new URL(url).host} is unreachable (${cause})`;
  }
}

/**
 * Whether electron-builder can get Electron's zip here: {ok: true} or {ok: false, reason}.
 * `probe` is injectable so tests never touch the network.
 */
export async function electronAvailability({
  version = installedElectronVersion(),
  platform = process.platform,
  arch = process.arch,
  env = process.env,
  probe = probeUrl,
} = {}) {
  const zip = `electron-v${version}-${platform}-${arch}.zip`;
  if (cachedZip(electronCacheDir(env, platform), zip)) return { ok: true };
  const mirror = env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  const url = `${mirror.replace(/\/?$/, '/')}v${version}/${zip}`;
  const why = await probe(url);
  return why === null
    ? { ok: true }
    : { ok: false, reason: `Electron ${version}'s ${zip} cannot be fetched: ${why}` };
}

/** electron-builder's flag for the platforms this host can build. */
const HOST_TARGET = { linux: '--linux', darwin: '--mac', win32: '--win' };

async function main() {
  try {
    await validateBuilderConfig();
  } catch (err) {
    process.stderr.write(`rlwatch: electron-builder.yml is invalid: ${err.message ?? err}\n`);
    return 1;
  }
  const electron = await electronAvailability();
  if (!electron.ok) {
    process.stderr.write(
      `rlwatch: cannot package here: ${electron.reason}; electron-builder.yml is valid, nothing was built.\n`,
    );
    return EXIT_CANNOT_PACKAGE;
  }
  const run = (cmd, args) =>
    spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  const built = run('npm', ['run', 'build:app']);
  if (built.status !== 0) return built.status ?? 1;
  const builder = requireHere.resolve('electron-builder/cli.js');
  const target = HOST_TARGET[process.platform];
  const r = run(process.execPath, [
    builder,
    ...(target ? [target] : []),
    '--publish',
    'never',
    ...process.argv.slice(2),
  ]);
  return r.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(await main());
