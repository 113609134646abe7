// Test helper: the one well-formed run a fake remote endpoint lists (RunInfo as it travels on the wire).

export const REMOTE_RUN = {
  run: 'r',
  sources: [],
  tags: ['t'],
  points: 0,
  lastEventAt: null,
  fileWrittenAt: null,
  progress: null,
  loaded: true,
  restarts: 0,
  worstAlert: null,
  stalled: false,
};
