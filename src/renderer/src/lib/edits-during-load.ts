// Settings the user changed while a load of the saved ones was in flight: they win over what the load returns (a click in the first seconds is not undone by a late answer).

export class EditsDuringLoad<T extends object> {
  private readonly open = new Set<Partial<T>>();

  /** Starts recording edits for one load; call `settle` with what the load returned. */
  begin(): Partial<T> {
    const edits: Partial<T> = {};
    this.open.add(edits);
    return edits;
  }

  /** An edit made now: every load in flight keeps it. */
  edited(patch: Partial<T>): void {
    for (const edits of this.open) Object.assign(edits, patch);
  }

  /** The loaded values with the edits made while that load was in flight laid over them. */
  settle(edits: Partial<T>, loaded: T): T {
    this.open.delete(edits);
    return { ...loaded, ...edits };
  }

  /** The load failed: its edits need no laying over. */
  drop(edits: Partial<T>): void {
    this.open.delete(edits);
  }
}
