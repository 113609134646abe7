// The contract's request handlers: thin adapters from validated arguments to the AppCore that owns the state.

import type { Handlers } from '../../shared/contract';
import type { TextSource } from '../../shared/text-items';
import { ApiError } from '../../shared/result';
import type { AppCore } from './app-core';
import { appTableSource, runsTableOf } from './runs-table-source';
import { textPage, textTags } from './run-texts';
import type { SampleSource } from '../../shared/samples';
import type * as RunSamples from './run-samples';
import { histogramTags, histogramTagView } from './run-histograms';
import type { HistogramSource } from '../../shared/histogram-items';

/** The samples' paging and search (with re2js, ≈ 250 KB), loaded by the first samples request, not at start-up (#36). */
const runSamples = (): Promise<typeof RunSamples> => import('./run-samples');

export function createHandlers(core: AppCore): Handlers {
  const host = core.host;
  const remotes = core.remotes;
  return {
    'app.info': () => core.info(),
    'app.visibility': ({ visible }) => {
      core.setVisible(visible);
      return null;
    },
    'app.firstScreen': () => {
      core.firstScreenDrawn();
      return null;
    },
    'runs.list': () => {
      core.pageArrived();
      return core.runs();
    },
    'runs.openFolder': ({ path }) => {
      if (!host.allowOpenFolder)
        throw new ApiError('unavailable', 'opening other folders is disabled in serve mode');
      // The first run's charts can show while the rest of a big folder loads (load.progress says how far).
      return core.open(path, { until: 'first-run' });
    },
    'runs.chooseFolder': async () => {
      if (!host.chooseFolder) throw new ApiError('unavailable', 'no folder picker in this mode');
      const picked = await host.chooseFolder();
      return picked === null ? null : core.open(picked, { until: 'first-run' });
    },
    'runs.recent': () => core.recent(),
    'runs.table': () => runsTableOf(appTableSource(core)),
    // A remote run's key (`HOST//RUN`) or alert id routes to the endpoint that owns it.
    'runs.details': ({ run }) => (remotes.owns(run) ? remotes.details(run) : core.details(run)),
    'runs.saveView': ({ view }) => {
      core.saveView(view);
      return null;
    },
    'series.get': ({ run, tag, ...q }) =>
      remotes.owns(run) ? remotes.series(run, tag, q) : core.series(run, tag, q),
    // Which series a client follows is the transport's to keep (server/socket-client.ts); the IPC window gets all.
    'series.follow': () => null,
    // Job alerts (core's) cite a node's run, which may be a remote one.
    'alerts.list': ({ run }) =>
      run === undefined
        ? [...core.alerts(), ...remotes.alerts()]
        : remotes.owns(run)
          ? [...remotes.alerts(run), ...core.jobs.monitor.alerts(run)]
          : core.alerts(run),
    'alerts.ack': ({ id }) =>
      remotes.owns(id) && !core.jobs.monitor.owns(id) ? remotes.ack(id) : core.ack(id),
    'alerts.snooze': ({ id, minutes }) =>
      remotes.owns(id) && !core.jobs.monitor.owns(id)
        ? remotes.snooze(id, minutes)
        : core.snooze(id, minutes),
    'system.history': ({ sinceMs }) => core.systemHistory(sinceMs),
    'settings.get': () => core.getSettings(),
    'settings.set': ({ patch }) => core.setSettings(patch),
    'endpoints.list': () => remotes.list(),
    'endpoints.add': ({ url }) => remotes.add(url, { sessionOnly: false }),
    'endpoints.remove': ({ id }) => {
      remotes.remove(id);
      return null;
    },
    'jobs.list': () => core.jobs.monitor.jobs(),
    'export.figure': (args) => core.exportFigure(args),
    'export.run': (args) => core.exportRun(args),
    'dialog.pickFolder': async () => {
      if (!host.pickExportFolder) throw new ApiError('unavailable', 'no folder picker in this mode');
      const picked = await host.pickExportFolder(core.getSettings().exportFolder);
      return picked === null ? null : { path: picked };
    },
    'export.incident': ({ id, folder, step }) => core.incident(id, folder, step),
    // A remote run's items are its endpoint's answer (core/remote/remote-items.ts), checked and under our key.
    'texts.list': (a) =>
      remotes.owns(a.run) ? remotes.items('texts.list', a) : textTags(localTexts(core, a.run)),
    'texts.get': (a) =>
      remotes.owns(a.run)
        ? remotes.items('texts.get', a)
        : textPage(a.run, a.tag, localTexts(core, a.run), a.step, a.limit),
    'samples.list': async (a) =>
      remotes.owns(a.run)
        ? remotes.items('samples.list', a)
        : (await runSamples()).sampleSources(localSamples(core, a.run)),
    'samples.get': async (a) => {
      if (remotes.owns(a.run)) return remotes.items('samples.get', a);
      const { run, source, step, ...page } = a;
      return (await runSamples()).samplePage(run, source, step ?? null, localSamples(core, run), page);
    },
    'histograms.list': (a) =>
      remotes.owns(a.run) ? remotes.items('histograms.list', a) : histogramTags(localHistograms(core, a.run)),
    'histograms.get': (a) =>
      remotes.owns(a.run)
        ? remotes.items('histograms.get', a)
        : histogramTagView(a.run, a.tag, localHistograms(core, a.run)),
  };
}

/** A local run's `of` (its samples, texts or histograms); an unknown run is not found. */
function local<T>(core: AppCore, run: string, of: (run: string) => T[]): T[] {
  if (!core.workspace.hasRun(run)) throw new ApiError('not-found', `no run ${run}`);
  return of(run);
}

const localSamples = (core: AppCore, run: string): SampleSource[] =>
  local(core, run, (r) => core.workspace.samplesOf(r));
const localTexts = (core: AppCore, run: string): TextSource[] =>
  local(core, run, (r) => core.workspace.textsOf(r));
const localHistograms = (core: AppCore, run: string): HistogramSource[] =>
  local(core, run, (r) => core.workspace.histogramsOf(r));
