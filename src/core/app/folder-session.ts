// The open folder's lifecycle: which folder is open, the workspace that follows it, and a new workspace when the
// polling choice changed (chokidar picks polling when it starts).

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiError } from '../../shared/result';
import { createWorkspace as createRealWorkspace } from '../workspace/create';
import type { Workspace } from '../workspace/workspace';

export type WorkspaceFactory = (opts: { usePolling: boolean }) => Workspace;

export interface FolderSessionOptions {
  createWorkspace?: WorkspaceFactory;
  /** Whether the watcher should poll (a session flag or the saved setting), asked at each open. */
  pollingWanted: () => boolean;
  /** Subscribes to a workspace's events; the returned functions unsubscribe (a replaced workspace is detached). */
  attach: (ws: Workspace) => (() => void)[];
}

const cannotOpen = (folder: string, err: unknown): ApiError =>
  new ApiError('io', `cannot open ${folder}: ${err instanceof Error ? err.message : String(err)}`);

export class FolderSession {
  private readonly makeWorkspace: WorkspaceFactory;
  private ws: Workspace;
  private wsPolling: boolean;
  private offs: (() => void)[];
  private openRoot: string | null = null;

  constructor(private readonly opts: FolderSessionOptions) {
    this.makeWorkspace = opts.createWorkspace ?? ((o) => createRealWorkspace(o));
    this.wsPolling = opts.pollingWanted();
    this.ws = this.makeWorkspace({ usePolling: this.wsPolling });
    this.offs = opts.attach(this.ws);
  }

  get workspace(): Workspace {
    return this.ws;
  }

  /** The open folder (absolute), null when none. Set while the folder loads, so alerts raised then have a home. */
  get root(): string | null {
    return this.openRoot;
  }

  get polling(): boolean {
    return this.wsPolling;
  }

  /** Throws ApiError('io') unless `folder` is a readable folder; answers its absolute path. */
  async checkFolder(folder: string): Promise<string> {
    const target = resolve(folder);
    let isDir = false;
    try {
      isDir = (await stat(target)).isDirectory();
    } catch (err) {
      throw cannotOpen(folder, err);
    }
    if (!isDir) throw new ApiError('io', `cannot open ${folder}: not a folder`);
    return target;
  }

  /** Opens `target` (no folder may be open): runs are read; resolves with the workspace's root. */
  async open(
    folder: string,
    target: string,
    until?: 'loaded' | 'first-run',
    restAfter?: () => Promise<void>,
  ): Promise<string> {
    if (this.opts.pollingWanted() !== this.wsPolling) await this.replaceWorkspace();
    this.openRoot = target;
    try {
      await this.ws.open(target, { ...(until ? { until } : {}), ...(restAfter ? { restAfter } : {}) });
    } catch (err) {
      this.openRoot = null;
      throw cannotOpen(folder, err);
    }
    this.openRoot = this.ws.root ?? target;
    return this.openRoot;
  }

  async close(): Promise<void> {
    await this.ws.close();
    this.openRoot = null;
  }

  /** Stops following for good: listeners detached, the workspace closed. */
  async dispose(): Promise<void> {
    this.detach();
    await this.ws.close();
  }

  private async replaceWorkspace(): Promise<void> {
    this.detach();
    await this.ws.close();
    this.wsPolling = this.opts.pollingWanted();
    this.ws = this.makeWorkspace({ usePolling: this.wsPolling });
    this.offs = this.opts.attach(this.ws);
  }

  private detach(): void {
    for (const off of this.offs.splice(0)) off();
  }
}
