// Network-filesystem detection from recorded /proc/self/mountinfo text, and the workspace's polling suggestion.

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { mountOf, networkFilesystem, parseMountInfo } from '../../../src/core/workspace/mount-info';
import { createSource } from '../../../src/core/sources/registry';
import { discover } from '../../../src/core/workspace/create';
import { Workspace } from '../../../src/core/workspace/workspace';
import type { AppNotice } from '../../../src/shared/domain';

// Recorded from Linux hosts (a workstation with NFS home, SMB and sshfs mounts, a VM with 9p).
const MOUNTINFO = [
  '22 27 0:21 / /proc rw,relatime - proc proc rw',
  '27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro',
  '30 27 0:25 / /run rw,nosuid,nodev,noexec,relatime shared:5 - tmpfs tmpfs rw,size=3273056k,mode=755',
  '95 27 0:52 / /home rw,relatime shared:48 - nfs4 fileserver:/export/home rw,vers=4.2,rsize=1048576,wsize=1048576,hard,proto=tcp',
  '96 95 259:3 / /home/alice/local rw,relatime shared:49 - ext4 /dev/nvme1n1p1 rw',
  '120 27 0:60 / /mnt/lab\\040share rw,relatime shared:70 - cifs //nas/lab\\040share rw,vers=3.1.1,cache=strict',
  '121 27 0:61 / /mnt/gpu-box rw,nosuid,nodev,relatime shared:71 - fuse.sshfs alice@gpu-box:/data rw,user_id=1000,group_id=1000',
  '130 27 0:70 / /mnt/host rw,relatime - 9p hostshare rw,trans=virtio',
  '131 27 0:71 / /mnt/runs rw,relatime - nfs 10.0.0.5:/runs rw,vers=3',
].join('\n');

describe('mountinfo', () => {
  test('parses mount point, type and source, decoding octal escapes', () => {
    const entries = parseMountInfo(MOUNTINFO + '\nnot a mountinfo line\n');
    expect(entries).toHaveLength(9);
    expect(entries[3]).toEqual({ mountPoint: '/home', fsType: 'nfs4', source: 'fileserver:/export/home' });
    expect(entries[5]).toEqual({ mountPoint: '/mnt/lab share', fsType: 'cifs', source: '//nas/lab share' });
  });

  test('the longest containing mount point wins, by path component', () => {
    const entries = parseMountInfo(MOUNTINFO);
    expect(mountOf(entries, '/home/alice/runs')!.fsType).toBe('nfs4');
    expect(mountOf(entries, '/home/alice/local/runs')!.fsType).toBe('ext4');
    expect(mountOf(entries, '/homework')!.mountPoint).toBe('/');
    expect(mountOf(entries, '/home')!.fsType).toBe('nfs4');
  });

  test.each([
    ['/home/alice/ppo', 'nfs4', 'NFS'],
    ['/mnt/runs/exp1', 'nfs', 'NFS'],
    ['/mnt/lab share/exp', 'cifs', 'SMB'],
    ['/mnt/gpu-box/logs', 'fuse.sshfs', 'sshfs'],
    ['/mnt/host/x', '9p', '9p'],
  ])('%s is on a network filesystem (%s)', (path, fsType, label) => {
    expect(networkFilesystem(MOUNTINFO, path)).toMatchObject({ fsType, label });
  });

  test.each(['/home/alice/local/runs', '/tmp/x', '/run/user/1000'])('%s is local', (path) => {
    expect(networkFilesystem(MOUNTINFO, path)).toBeNull();
  });
});

describe('workspace watchInfo', () => {
  let ws: Workspace | null = null;
  let dir = '';
  afterEach(async () => {
    await ws?.close();
    ws = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const open = async (usePolling: boolean, mountinfo: string): Promise<AppNotice[]> => {
    dir = mkdtempSync(join(tmpdir(), 'rlwatch-mnt-'));
    ws = new Workspace({
      discover,
      createSource,
      watch: false,
      usePolling,
      readMountInfo: () => Promise.resolve(mountinfo),
    });
    const notices: AppNotice[] = [];
    ws.on('app.notice', (n) => notices.push(n));
    await ws.open(dir);
    return notices;
  };
  const nfsAt = (path: string): string => `95 27 0:52 / ${path} rw,relatime - nfs4 server:/x rw`;

  test.runIf(process.platform === 'linux')(
    'suggests polling for a folder on NFS, once, as an info notice',
    async () => {
      const notices = await open(false, nfsAt(realpathSync(tmpdir())));
      const suggestion = 'this folder is on NFS: turn on polling (--poll) if new points stop arriving';
      expect(ws!.watchInfo()).toEqual({ polling: false, suggestion });
      expect(notices).toEqual([{ level: 'info', message: suggestion }]);
    },
  );

  test('no suggestion when polling is already on, or the folder is local', async () => {
    await open(true, nfsAt(realpathSync(tmpdir())));
    expect(ws!.watchInfo()).toEqual({ polling: true, suggestion: null });
    await ws!.close();
    rmSync(dir, { recursive: true, force: true });
    await open(false, '27 1 259:2 / / rw - ext4 /dev/sda1 rw');
    expect(ws!.watchInfo()).toEqual({ polling: false, suggestion: null });
  });
});
