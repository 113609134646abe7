// Dashboard settings: loaded with settings.get, saved with settings.set (debounced), kept locally when the backend cannot.

import { DEFAULT_SETTINGS, type Settings } from '../../../shared/domain';
import type { Backend } from '../backend/backend';
import { EditsDuringLoad } from './edits-during-load';

type Patch = Partial<
  Pick<Settings, 'theme' | 'smoothing' | 'xAxis' | 'logY' | 'ignoreOutliers' | 'earlierSessions'>
>;
const LOCAL_KEY = 'rlwatch.settings';

function readLocal(): Patch {
  try {
    const raw = localStorage.getItem(LOCAL_KEY);
    return raw ? (JSON.parse(raw) as Patch) : {};
  } catch {
    return {};
  }
}

export class SettingsStore {
  value = $state<Settings>({ ...DEFAULT_SETTINGS, ...readLocal() });
  /** 'backend' once settings.get answered; 'local' when the backend cannot store them (kept in this browser). */
  source = $state<'pending' | 'backend' | 'local'>('pending');
  /** Why the backend did not store them, shown as a hint in the toolbar. */
  reason = $state<string | null>(null);
  private pending: Patch = {};
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** A setting changed while settings.get was in flight (the first seconds, a reconnect) is not undone by its answer. */
  private readonly duringLoad = new EditsDuringLoad<Settings>();

  constructor(private readonly backend: Backend) {}

  async load(): Promise<void> {
    const edits = this.duringLoad.begin();
    const r = await this.backend.invoke('settings.get', {});
    if (r.ok) {
      // Edits not yet sent (the 300 ms pause) are laid over too: the answer cannot know them.
      this.value = { ...this.duringLoad.settle(edits, r.value), ...this.pending };
      this.source = 'backend';
      this.reason = null;
    } else {
      this.duringLoad.drop(edits);
      this.source = 'local';
      this.reason = r.error.message;
    }
  }

  /** Applies at once; saves after a short pause so a dragged slider is one request. */
  set(patch: Patch): void {
    this.value = { ...this.value, ...patch };
    this.duringLoad.edited(patch);
    this.pending = { ...this.pending, ...patch };
    try {
      localStorage.setItem(LOCAL_KEY, JSON.stringify({ ...readLocal(), ...patch }));
    } catch {
      // Storage may be disabled; the backend copy is the one that matters.
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), 300);
  }

  /** Takes in values the backend already saved itself (the folder an export went to). */
  saved(patch: Partial<Settings>): void {
    this.value = { ...this.value, ...patch };
  }

  private async flush(): Promise<void> {
    const patch = this.pending;
    this.pending = {};
    this.timer = null;
    if (this.source === 'local') return;
    const r = await this.backend.invoke('settings.set', { patch });
    if (!r.ok) {
      this.source = 'local';
      this.reason = r.error.message;
    }
  }
}
