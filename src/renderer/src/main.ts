// Minimal dashboard: run list and one live chart per scalar tag of the selected run.

import type { RunInfo, SeriesDelta } from '../../shared/domain';
import { pickBackend } from './backend/pick';
import { ChartCard } from './chart-card';

const backend = pickBackend();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const runList = $<HTMLUListElement>('run-list');
const chartsEl = $<HTMLElement>('charts');
const emptyEl = $<HTMLElement>('empty');
const noticeEl = $<HTMLElement>('notice');
const connectionEl = $<HTMLElement>('connection');
const rootEl = $<HTMLElement>('root-path');
const openButton = $<HTMLButtonElement>('open-folder');

let runs: RunInfo[] = [];
let selected: string | null = null;
const cards = new Map<string, ChartCard>();
/** Deltas that arrive while a chart's first load is in flight, applied after it. */
const loading = new Map<string, SeriesDelta[]>();

function showNotice(message: string | null): void {
  noticeEl.hidden = message === null;
  noticeEl.textContent = message ?? '';
}

function formatAgo(ms: number | null): string {
  if (ms === null) return 'no data yet';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}

function renderRunList(): void {
  runList.replaceChildren(
    ...runs.map((r) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.run = r.run;
      b.setAttribute('aria-current', String(r.run === selected));
      b.textContent = r.run;
      const meta = document.createElement('span');
      meta.className = 'run-meta';
      const progress = r.progress?.fraction != null ? ` · ${Math.round(r.progress.fraction * 100)}%` : '';
      meta.textContent = `${r.tags.length} tags · last event ${formatAgo(r.lastEventAt)}${progress}`;
      b.append(meta);
      b.addEventListener('click', () => selectRun(r.run));
      li.append(b);
      return li;
    }),
  );
  emptyEl.hidden = runs.length > 0;
}

function selectRun(run: string): void {
  if (run === selected) return;
  selected = run;
  for (const c of cards.values()) c.destroy();
  cards.clear();
  loading.clear();
  renderRunList();
  syncCharts();
}

/** Adds a chart for every tag of the selected run that has none yet. */
function syncCharts(): void {
  const info = runs.find((r) => r.run === selected);
  if (!info) return;
  for (const tag of info.tags) {
    if (cards.has(tag)) continue;
    const card = new ChartCard(tag);
    cards.set(tag, card);
    chartsEl.append(card.element);
    void loadSeries(info.run, tag, card);
  }
}

async function loadSeries(run: string, tag: string, card: ChartCard): Promise<void> {
  loading.set(tag, []);
  const r = await backend.invoke('series.get', { run, tag, pixels: 4000 });
  const queued = loading.get(tag) ?? [];
  loading.delete(tag);
  if (selected !== run || cards.get(tag) !== card) return;
  if (!r.ok) {
    showNotice(r.error.message);
    return;
  }
  card.setAll(r.value);
  // Deltas that raced the load: keep only points past what the load returned.
  for (const d of queued) if (d.from >= r.value.length) card.append(d);
}

backend.on('runs.changed', (next) => {
  runs = next;
  if (selected === null || !runs.some((r) => r.run === selected)) {
    const first = runs[0];
    if (first) {
      selected = null;
      selectRun(first.run);
      return;
    }
  }
  renderRunList();
  syncCharts();
});

backend.on('series.appended', (delta) => {
  if (delta.run !== selected) return;
  const pendingLoad = loading.get(delta.tag);
  if (pendingLoad) {
    pendingLoad.push(delta);
    return;
  }
  const card = cards.get(delta.tag);
  if (card) card.append(delta);
  else {
    const info = runs.find((r) => r.run === delta.run);
    if (info && !info.tags.includes(delta.tag)) info.tags.push(delta.tag);
    syncCharts();
  }
});

backend.on('app.notice', (n) => showNotice(n.message));

backend.onConnection((state) => {
  connectionEl.textContent = state === 'connected' ? `connected (${backend.kind})` : 'reconnecting…';
  if (state === 'connected') void refresh();
});

openButton.addEventListener('click', () => {
  void backend.invoke('runs.chooseFolder', {}).then((r) => {
    if (!r.ok) showNotice(r.error.message);
    else void refresh();
  });
});

async function refresh(): Promise<void> {
  const info = await backend.invoke('app.info', {});
  if (info.ok) {
    rootEl.textContent = info.value.root ?? 'no folder open';
    openButton.hidden = !info.value.canChooseFolder;
  }
  const list = await backend.invoke('runs.list', {});
  if (!list.ok) {
    showNotice(list.error.message);
    return;
  }
  runs = list.value;
  if (selected === null && runs[0]) selectRun(runs[0].run);
  else {
    renderRunList();
    syncCharts();
  }
}

setInterval(renderRunList, 5000);
