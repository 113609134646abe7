// Reader errors quote no file content (a planted symlink must not leak what it points to) and say
// where and what; a live reader reports a file that stays broken instead of freezing in silence.

import { describe, expect, it } from 'vitest';
import { MlflowMetricReader } from '../../../src/core/mlflow/metric-reader';
import { CsvReader } from '../../../src/core/text-formats/csv-reader';
import { JsonlReader } from '../../../src/core/text-formats/jsonl-reader';
import { TrainerStateReader } from '../../../src/core/text-formats/trainer-state-reader';
import { JsonHistoryReader } from '../../../src/core/text-formats/json-history-reader';
import { MemoryFS } from './helpers';

const SECRET = 'hunter2-SECRET';

function noContent(messages: string[]): void {
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) {
    expect(m).not.toContain(SECRET);
    expect(m).not.toContain('hunter');
  }
}

describe('error messages quote no file content', () => {
  it('trainer_state.json that is not JSON: where and what, no text', async () => {
    const fs = new MemoryFS();
    fs.set('/trainer_state.json', `${SECRET} root:x:0:0:root:/root:/bin/bash\n`);
    const r = new TrainerStateReader('/trainer_state.json', { io: fs });
    const { errors } = await r.readMore({ final: true });
    noContent(errors.map((e) => e.message));
    expect(errors[0]!.kind).toBe('decode');
    expect(errors[0]!.message).toMatch(/byte 0/);
  });

  it('a JSON syntax error later in a document gives its byte offset', async () => {
    const fs = new MemoryFS();
    fs.set('/h.json', `[{"a": 1}, {"é": ${SECRET}}]`);
    const r = new JsonHistoryReader('/h.json', { io: fs });
    const { errors } = await r.readMore({ final: true });
    noContent(errors.map((e) => e.message));
    expect(errors[0]!.offset).toBe(Buffer.byteLength('[{"a": 1}, {"é": '));
  });

  it('JSONL lines that are not JSON: line offset, no text', async () => {
    const fs = new MemoryFS();
    fs.set('/m.jsonl', `{"step": 1, "a": 1}\n${SECRET}\n{"step": 2, "a": `);
    const r = new JsonlReader('/m.jsonl', { io: fs });
    const { errors } = await r.readMore({ final: true });
    noContent(errors.map((e) => e.message));
    expect(errors.map((e) => `${e.kind}@${e.offset}`)).toEqual(['decode@20', 'truncated@35']);
  });

  it('an MLflow metric file that holds other lines (a file linked in): which field is wrong, no text', async () => {
    const fs = new MemoryFS();
    fs.set(
      '/run/metrics/loss',
      `${SECRET} 1 2\n1 ${SECRET} 2\n1 2 ${SECRET}\n1 2 3 ${SECRET}\nroot:x:0:0:${SECRET}`,
    );
    const r = new MlflowMetricReader('/run/metrics/loss', { io: fs });
    const { errors } = await r.readMore({ final: true });
    noContent(errors.map((e) => e.message));
    expect(errors.map((e) => `${e.kind}@${e.offset}: ${e.message}`)).toEqual([
      'decode@0: MLflow metric loss: the timestamp is not an integer',
      'decode@19: MLflow metric loss: the value is not a number',
      'decode@38: MLflow metric loss: the step is not an integer',
      'decode@57: MLflow metric loss: 4 fields, not "timestamp value step"',
      'truncated@78: MLflow metric loss: 1 field, not "timestamp value step"',
    ]);
  });

  it('CSV with an unclosed quote: where, no field text', async () => {
    const fs = new MemoryFS();
    fs.set('/m.csv', `step,loss\n1,0.5\n2,"${SECRET}\n`);
    const r = new CsvReader('/m.csv', { io: fs });
    const { errors } = await r.readMore({ final: true });
    noContent(errors.map((e) => e.message));
    expect(errors[0]!.offset).toBe(16);
    expect(errors[0]!.message).toMatch(/quote/i);
  });
});

describe('a live reader reports a file that stays broken', () => {
  it('CSV: an unterminated quote that holds back later rows is an error while live', async () => {
    const fs = new MemoryFS();
    fs.set('/m.csv', 'step,loss\n1,0.5\n2,"oops\n3,0.3\n4,0.2\n');
    const r = new CsvReader('/m.csv', { io: fs });
    const { errors } = await r.readMore();
    expect(errors.map((e) => `${e.kind}@${e.offset}`)).toEqual(['decode@16']);
    expect(errors[0]!.message).toMatch(/quote/i);
    // Reported once, not on every poll.
    fs.set('/m.csv', 'step,loss\n1,0.5\n2,"oops\n3,0.3\n4,0.2\n5,0.1\n', 1_700_000_001);
    expect((await r.readMore()).errors).toEqual([]);
  });

  it('CSV: a quoted field still being written is not an error yet', async () => {
    const fs = new MemoryFS();
    fs.set('/m.csv', 'step,note\n1,"a long\n');
    const r = new CsvReader('/m.csv', { io: fs });
    expect((await r.readMore()).errors).toEqual([]);
  });

  it('trainer_state.json: a retry while being written, an error once it stays broken', async () => {
    const fs = new MemoryFS();
    const doc = JSON.stringify({ global_step: 2, log_history: [{ step: 1, loss: 1 }] });
    let now = 1_700_000_000_000;
    fs.set('/trainer_state.json', doc.slice(0, 20), 1_700_000_000);
    const r = new TrainerStateReader('/trainer_state.json', { io: fs, now: () => now });
    // Just written: the writer may still be at it.
    expect((await r.readMore()).errors).toEqual([]);
    now += 500;
    expect((await r.readMore()).errors).toEqual([]);
    // Unchanged for seconds: it stays broken.
    now += 5000;
    const late = await r.readMore();
    expect(late.errors.map((e) => e.kind)).toEqual(['truncated']);
    expect((await r.readMore()).errors).toEqual([]);
    // Fixed: read, no error.
    fs.set('/trainer_state.json', doc, 1_700_000_006);
    expect(await r.readMore()).toEqual({ records: 1, errors: [] });
  });
});
