// Concurrent writers: sources written at the same time are kept apart; one after another they are one writer.

import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { splitWriters, writerLabel, writerTag } from '../../../src/core/series/writers';
import { createWorkspace } from '../../../src/core/workspace/create';

const src = (name: string, start: number, end: number) => ({ name, start, end, ref: name });
const names = (ws: ReturnType<typeof splitWriters<string>>) =>
  ws.map((w) => [w.label, w.sources.map((s) => s.ref)]);

describe('splitWriters', () => {
  test('a restart (a new file after the last point of the old one) continues the writer', () => {
    const w = splitWriters([src('events.1.host.10.0', 100, 200), src('events.2.host.11.0', 300, 400)]);
    expect(names(w)).toEqual([[null, ['events.1.host.10.0', 'events.2.host.11.0']]]);
  });

  test('train and validation written at once are two writers; their restarts follow the file they resemble', () => {
    const w = splitWriters([
      src('events.out.tfevents.1.host.19.0.v2', 100, 200),
      src('events.out.tfevents.1.host.19.1.v2', 101, 201),
      src('events.out.tfevents.5.host.27.0.v2', 500, 600),
      src('events.out.tfevents.5.host.27.1.v2', 501, 601),
    ]);
    expect(names(w)).toEqual([
      [null, ['events.out.tfevents.1.host.19.0.v2', 'events.out.tfevents.5.host.27.0.v2']],
      ['writer 2', ['events.out.tfevents.1.host.19.1.v2', 'events.out.tfevents.5.host.27.1.v2']],
    ]);
  });

  test('labels: a part with letters the first writer lacks names the writer (a suffix, a host)', () => {
    expect(writerLabel('events.out.tfevents.1.nodeA.5.0', 'events.out.tfevents.1.nodeB.7.0', 1)).toBe(
      'nodeB',
    );
    expect(
      writerLabel('events.out.tfevents.1.h.5.0.train', 'events.out.tfevents.1.h.5.1.validation', 1),
    ).toBe('validation');
    expect(writerTag('epoch_loss', 'validation')).toBe('epoch_loss (validation)');
    expect(writerTag('epoch_loss', null)).toBe('epoch_loss');
  });

  test('sources with no times stay one writer in file order', () => {
    const w = splitWriters([src('a.csv', Number.NaN, Number.NaN), src('b.csv', Number.NaN, Number.NaN)]);
    expect(names(w)).toEqual([[null, ['a.csv', 'b.csv']]]);
  });
});

test("Keras-style train and test event files in one folder (katib's): both writers' values shown, no restart", async () => {
  const ws = createWorkspace({ watch: false });
  try {
    await ws.open(join(__dirname, '../../fixtures/tfevents/kubeflow__katib'));
    const run = ws.listRuns()[0]!;
    expect(run.tags).toEqual(['accuracy', 'accuracy (writer 2)', 'loss', 'loss (writer 2)']);
    expect(run.restarts).toBe(0);
    const train = ws.getWindow('kubeflow__katib', 'loss', { pixels: 100 })!;
    const test = ws.getWindow('kubeflow__katib', 'loss (writer 2)', { pixels: 100 })!;
    // As inspect reads each file: train 0.2048 → 0.0360666, test 0.0755185 → 0.0559284, 10 steps each.
    expect([...train.steps]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(train.values[0]).toBeCloseTo(0.2048, 4);
    expect(train.values[9]).toBeCloseTo(0.0360666, 6);
    expect(test.values[9]).toBeCloseTo(0.0559284, 6);
    expect(train.sessions).toHaveLength(1);
  } finally {
    await ws.close();
  }
});
