// docs/HEALTH-RULES.md lists every rule of the registry, with its title and its advice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_IDS, RULE_TITLES, ruleAdvice } from '../../../src/core/health';

const text = readFileSync(join(__dirname, '../../../docs/HEALTH-RULES.md'), 'utf8');
const doc = text.slice(text.indexOf('## Family, evidence and advice of every rule'));

describe('docs/HEALTH-RULES.md', () => {
  it('has one row per rule id, with its title and its advice', () => {
    expect(doc.length).toBeGreaterThan(100);
    for (const id of RULE_IDS) {
      const row = doc.split('\n').find((l) => new RegExp(`^\\| \`${id}\` +\\|`).test(l));
      expect(row, id).toBeDefined();
      expect(row).toContain(RULE_TITLES[id]);
      expect(row).toContain(ruleAdvice(id, 'llm'));
    }
  });
});
