// The watched-folder budgets, shared by both watchers: how many folders at most, and how many outside the run tree.

/** Each watched folder is an inotify watch and watcher state: a link out to /usr must not cost GBs. Run folders hold
 * a few files; other folders can hold thousands, hence their own smaller budget (measured with chokidar: 2000 folders
 * of /usr cost 350 MB and 25 s; 2000 run folders ~130 MB). */
export const DEFAULT_MAX_WATCHED_FOLDERS = 1000;
export const DEFAULT_MAX_OTHER_FOLDERS = 64;

export class FolderBudget {
  private readonly watched = new Set<string>();
  /** The admitted folders outside the run tree. */
  private readonly otherSet = new Set<string>();
  private noticed = false;

  constructor(
    private readonly maxFolders: number,
    private readonly maxOthers: number,
    /** The budget was hit (once): `skipped` folders found by discovery are not watched. */
    private readonly onHit: (watched: number, skipped: number) => void,
  ) {}

  has(folder: string): boolean {
    return this.watched.has(folder);
  }

  get size(): number {
    return this.watched.size;
  }

  /** The folders newly admitted: `runTree` first (the opened folder, run folders and the folders between), then
   * `others`; one notice the first time a budget is hit. */
  admit(runTree: readonly string[], others: readonly string[]): string[] {
    const added: string[] = [];
    let skipped = 0;
    const take = (f: string, other: boolean): void => {
      if (this.watched.has(f)) return;
      if (this.watched.size >= this.maxFolders || (other && this.otherSet.size >= this.maxOthers)) {
        skipped++;
        return;
      }
      this.watched.add(f);
      if (other) this.otherSet.add(f);
      added.push(f);
    };
    for (const f of runTree) take(f, false);
    for (const f of others) take(f, true);
    if (skipped > 0 && !this.noticed) {
      this.noticed = true;
      this.onHit(this.watched.size, skipped);
    }
    return added;
  }

  /** A watched folder went away: its place is free (rediscovery admits it again if it comes back). */
  release(folder: string): void {
    this.watched.delete(folder);
    this.otherSet.delete(folder);
  }

  /** The admitted folders. */
  folders(): IterableIterator<string> {
    return this.watched.values();
  }
}
