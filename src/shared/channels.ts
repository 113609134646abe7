// The names of every request channel and push event of the contract; zod-free so preload and renderer stay small.

export const REQUEST_CHANNELS = [
  'app.info',
  'app.visibility',
  'app.firstScreen',
  'runs.list',
  'runs.openFolder',
  'runs.chooseFolder',
  'runs.recent',
  'runs.details',
  'runs.saveView',
  'runs.table',
  'series.get',
  'series.follow',
  'alerts.list',
  'alerts.ack',
  'alerts.snooze',
  'system.history',
  'settings.get',
  'settings.set',
  'endpoints.list',
  'endpoints.add',
  'endpoints.remove',
  'jobs.list',
  'export.figure',
  'export.run',
  'dialog.pickFolder',
  'export.incident',
  'texts.list',
  'texts.get',
  'samples.list',
  'samples.get',
  'histograms.list',
  'histograms.get',
] as const;

export const PUSH_EVENTS = [
  'runs.changed',
  'series.appended',
  'series.reset',
  'alerts.changed',
  'system.snapshot',
  'load.progress',
  'app.focus',
  'app.notice',
  'app.notification',
  'endpoints.changed',
  'jobs.changed',
  'export.progress',
] as const;

export type RequestChannel = (typeof REQUEST_CHANNELS)[number];
export type PushEvent = (typeof PUSH_EVENTS)[number];

export function isRequestChannel(name: unknown): name is RequestChannel {
  return typeof name === 'string' && (REQUEST_CHANNELS as readonly string[]).includes(name);
}

export function isPushEvent(name: unknown): name is PushEvent {
  return typeof name === 'string' && (PUSH_EVENTS as readonly string[]).includes(name);
}

/** The IPC channel name Electron uses for a contract channel, namespaced so nothing else collides. */
export const ipcName = (channel: RequestChannel | PushEvent): string => `rlwatch:${channel}`;
