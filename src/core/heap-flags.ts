// V8 settings for rlwatch's long-lived processes (serve, watch, the app), set before the rest of their code loads.

import { setFlagsFromString } from 'node:v8';

/** No allocation-site pretenuring. A live folder's per-delta objects (2,500 a second with 50 runs × 50 tags) die
 * young, but once a first read's long slices had them survive a scavenge, V8 allocated them straight into the old
 * space, which then filled with garbage at ≈ 1.8 MB/s until a full collection (serve's RSS up to +90 MB; #36,
 * docs/BENCHMARKS.md). The flag is read when V8 decides where a site allocates, so setting it first thing takes. */
setFlagsFromString('--no-allocation-site-pretenuring');
