// System health rules on sampled series: generation throughput, GPU idle while training, memory nearly full.

import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import { HOLD, OK, bad, windowStat, type PointRule } from './point-rule';

/** Generation throughput below 1 token/s (seed 000). */
export const lowThroughput: PointRule<null> = {
  id: 'generation-throughput-low',
  clearAfter: 3,
  applies: (role) => role === 'generation_throughput',
  init: () => null,
  observe: (_s, v, { th, tag, step }) => {
    if (!Number.isFinite(v)) return HOLD;
    const min = th.min_tokens_per_sec;
    if (v < min) return bad('warning', 3, `${tag} = ${fmt(v)} tokens/s at step ${step}, below ${fmt(min)}`);
    return v >= 1.2 * min ? OK : HOLD;
  },
};

/** GPU utilisation below 50 % while training (seed 000), on the median of 5 samples. */
export const gpuIdle: PointRule<Window> = {
  id: 'gpu-util-low',
  clearAfter: 3,
  applies: (role) => role === 'gpu_util',
  init: () => new Window(5),
  observe: (w, v, { th, tag, step, trainingActive }) => {
    if (!Number.isFinite(v)) return HOLD;
    w.push(v, step);
    if (w.length < 5) return HOLD;
    // A finished or paused run leaves the GPU idle on purpose: clear rather than hold.
    if (!trainingActive) return OK;
    const med = w.median();
    const min = th.gpu_util_min;
    if (med < min)
      return bad(
        'warning',
        3,
        `${tag} = ${fmt(v)} %; median of 5 samples ${fmt(med)} % below ${fmt(min)} % while training`,
        windowStat('median', w, med),
      );
    return med >= min + 10 ? OK : HOLD;
  },
};

/** System memory above 90 % (seed 000); > 97 % critical (OOM is imminent). */
export const memoryHigh: PointRule<null> = {
  id: 'memory-high',
  clearAfter: 3,
  applies: (role) => role === 'memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.memory_max;
    if (v > max) return bad(v > 97 ? 'critical' : 'warning', 3, `${tag} = ${fmt(v)} % above ${fmt(max)} %`);
    return v < max - 5 ? OK : HOLD;
  },
};

/** GPU memory nearly full (> 95 %, > 99 % critical). */
export const gpuMemoryHigh: PointRule<null> = {
  id: 'gpu-memory-high',
  clearAfter: 3,
  applies: (role) => role === 'gpu_memory_pct',
  init: () => null,
  observe: (_s, v, { th, tag }) => {
    if (!Number.isFinite(v)) return HOLD;
    const max = th.gpu_memory_max;
    if (v > max)
      return bad(v > 99 ? 'critical' : 'warning', 3, `${tag} = ${fmt(v)} % — GPU memory nearly full`);
    return v < max - 5 ? OK : HOLD;
  },
};
