// The app's one backend, made as this module is evaluated: main.ts imports it first, so the socket's handshake runs while the rest of the page's script is evaluated and the dashboard mounted (#36).

import { pickBackend } from './pick';

/** Made before Svelte, chart.js and the dashboard's modules are evaluated (they import nothing here). */
export const backend = pickBackend();
