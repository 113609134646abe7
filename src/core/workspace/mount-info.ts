// Tells whether a path lies on a network filesystem (inotify misses remote writes there), from /proc/self/mountinfo.

import { readFile, realpath } from 'node:fs/promises';

export interface MountEntry {
  mountPoint: string;
  fsType: string;
  source: string;
}

/** Filesystem types where file events from other machines do not arrive: polling is needed. */
const NETWORK_TYPES = new Map<string, string>([
  ['nfs', 'NFS'],
  ['nfs4', 'NFS'],
  ['cifs', 'SMB'],
  ['smb3', 'SMB'],
  ['smbfs', 'SMB'],
  ['fuse.sshfs', 'sshfs'],
  ['9p', '9p'],
  ['virtiofs', 'virtiofs'],
  ['vboxsf', 'a VirtualBox shared folder'],
  ['afs', 'AFS'],
  ['ceph', 'CephFS'],
  ['fuse.ceph-fuse', 'CephFS'],
  ['glusterfs', 'GlusterFS'],
  ['fuse.glusterfs', 'GlusterFS'],
  ['lustre', 'Lustre'],
  ['gpfs', 'GPFS'],
  ['beegfs', 'BeeGFS'],
  ['fuse.s3fs', 's3fs'],
  ['fuse.gcsfuse', 'gcsfuse'],
  ['fuse.rclone', 'rclone'],
  ['fuse.juicefs', 'JuiceFS'],
  ['davfs', 'WebDAV'],
  ['fuse.davfs', 'WebDAV'],
]);

/** mountinfo escapes space, tab, newline and backslash as \ooo octal. */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses /proc/self/mountinfo text (proc(5)); malformed lines are skipped. */
export function parseMountInfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    const dash = fields.indexOf('-');
    if (dash < 6 || fields.length < dash + 3) continue;
    out.push({
      mountPoint: unescapeOctal(fields[4]!),
      fsType: fields[dash + 1]!,
      source: unescapeOctal(fields[dash + 2]!),
    });
  }
  return out;
}

/** The mount holding `path` (absolute, symlinks already resolved): the longest mount point that
 * contains it; the last one listed wins among equals (a later mount hides an earlier one). */
export function mountOf(entries: readonly MountEntry[], path: string): MountEntry | null {
  let best: MountEntry | null = null;
  for (const e of entries) {
    const mp = e.mountPoint;
    const inside = mp === '/' || path === mp || path.startsWith(mp.endsWith('/') ? mp : mp + '/');
    if (inside && (!best || mp.length >= best.mountPoint.length)) best = e;
  }
  return best;
}

/** The network filesystem `path` lies on ({fsType, label}), or null for a local one. */
export function networkFilesystem(
  mountinfo: string,
  path: string,
): { fsType: string; label: string; mountPoint: string } | null {
  const m = mountOf(parseMountInfo(mountinfo), path);
  if (!m) return null;
  const label = NETWORK_TYPES.get(m.fsType);
  return label ? { fsType: m.fsType, label, mountPoint: m.mountPoint } : null;
}

/** Whether plain fs.watch (inotify) on a folder of this filesystem type sees every write made on this machine by its
 * name: not on a network filesystem (other machines' writes never arrive) nor through FUSE (the daemon decides what
 * the kernel hears of). Unknown (null: no mountinfo) counts as local, as for the network check. */
export function fsWatchTrusted(fsType: string | null): boolean {
  return fsType === null || (!NETWORK_TYPES.has(fsType) && !fsType.startsWith('fuse'));
}

export function pollingSuggestion(label: string): string {
  return `this folder is on ${label}: turn on polling (--poll) if new points stop arriving`;
}

/** Looks the folder up on this machine: the network filesystem it lies on (null for a local one) and its mount's
 * type (null when unknown). Linux only (macOS's statfs type names are not exposed by Node's fs.statfs, so there both
 * are always null). Never throws. */
export async function detectFilesystem(
  folder: string,
  readMountInfo: () => Promise<string> = () => readFile('/proc/self/mountinfo', 'utf8'),
): Promise<{ network: { fsType: string; label: string; mountPoint: string } | null; fsType: string | null }> {
  if (process.platform !== 'linux') return { network: null, fsType: null };
  try {
    const real = await realpath(folder);
    const text = await readMountInfo();
    return {
      network: networkFilesystem(text, real),
      fsType: mountOf(parseMountInfo(text), real)?.fsType ?? null,
    };
  } catch {
    return { network: null, fsType: null };
  }
}
