// Response-length health rules of LLM RL runs: the mean response length collapsing or exploding against its own
// recent level (verl `response_length/mean`, TRL `completions/mean_length`).

import { formatNumber as fmt } from '../../shared/format';
import { Window } from './stats';
import { HOLD, OK, type PointRule } from './point-rule';
import type { RuleId, Statistic } from './types';

/** The mean length of a batch's responses (not its min / max / clip ratio, which share the namespace). */
const MEAN_LENGTH_TAG = /(^|[/_])mean(_length)?$|(^|\/)(completion|response)_length$/i;

/** A length this many times off its recent median on two points in a row is a change of regime… */
const LENGTH_FACTOR = 3;
/** …and this many times on one point is critical at once (the "> 5× in a few updates"). */
const LENGTH_FAR = 5;
const HISTORY = 20;
const MIN_HISTORY = 8;

interface LengthState {
  /** Recent lengths not judged a collapse / explosion: the level one is measured from. */
  w: Window;
}

/** A length rule: `factor(v, med)` is how many times shorter (collapse) or longer (explosion) v is. */
function lengthRule(
  id: RuleId,
  factor: (v: number, med: number) => number,
  what: string,
  consequence: string,
): PointRule<LengthState> {
  return {
    id,
    clearAfter: 5,
    applies: (role, tag) => role === 'response_length' && MEAN_LENGTH_TAG.test(tag),
    init: () => ({ w: new Window(HISTORY) }),
    observe: (s, v, { tag, step }) => {
      if (!Number.isFinite(v) || v < 0) return HOLD;
      if (s.w.length < MIN_HISTORY) {
        s.w.push(v, step);
        return HOLD;
      }
      const med = s.w.median();
      if (!(med > 0)) {
        s.w.push(v, step);
        return HOLD;
      }
      const f = factor(v, med);
      if (f >= LENGTH_FACTOR) {
        const stat: Statistic = { kind: 'median', fromStep: s.w.fromStep, toStep: s.w.toStep, value: med };
        const far = f >= LENGTH_FAR;
        return {
          kind: 'bad',
          severity: far ? 'critical' : 'warning',
          after: far ? 1 : 2,
          message: `${tag} = ${fmt(v)} at step ${step}, ${fmt(f)}× ${what} than its recent median ${fmt(med)} (steps ${stat.fromStep}–${stat.toStep}): ${consequence}`,
          statistic: stat,
        };
      }
      s.w.push(v, step);
      return f < 1.5 ? OK : HOLD;
    },
  };
}

export const responseLengthCollapse = lengthRule(
  'response-length-collapse',
  (v, med) => (v > 0 ? med / v : Infinity),
  'shorter',
  'responses collapsed',
);

export const responseLengthExplosion = lengthRule(
  'response-length-explosion',
  (v, med) => v / med,
  'longer',
  'responses exploded',
);

export const LLM_RULES = [responseLengthCollapse, responseLengthExplosion] as const;
