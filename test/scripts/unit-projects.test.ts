// The unit tests' two projects (vitest.config.ts): every file that replaces a module or fuzzes runs in a module graph of
// its own, every other unit file in the shared one, each exactly once; and a file's changes to the process do not
// reach the next file of a shared graph.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import config from '../../vitest.config';
import { keepProcess } from '../helpers/process-keeper';

interface Project {
  test: { name: string; include: string[]; exclude?: string[]; isolate?: boolean; setupFiles?: string[] };
}
const projects = (config as { test: { projects: Project[] } }).test.projects;
const project = (name: string): Project['test'] => projects.find((p) => p.test.name === name)!.test;

const unitFiles = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((f) => join('test', f).split('\\').join('/'))
  .filter((f) => f.endsWith('.test.ts') && !/^test\/(?:e2e|built|cluster|alerts)\//.test(f));

describe('the unit projects', () => {
  test('a file that calls vi.mock or fuzzes is isolated and not in the shared graph; the shared project shares', () => {
    const isolated = project('unit-isolated').include;
    const shared = project('unit');
    expect(shared.isolate).toBe(false);
    expect(shared.setupFiles).toEqual(['test/helpers/shared-graph-setup.ts']);
    const mocking = unitFiles.filter((f) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(f, 'utf8')));
    const fuzzing = unitFiles.filter((f) => /fuzz/.test(f.split('/').pop()!));
    expect(mocking.length).toBeGreaterThan(5);
    expect(fuzzing.length).toBeGreaterThan(5);
    for (const f of [...mocking, ...fuzzing]) {
      expect(isolated).toContain(f);
      expect(shared.exclude).toContain(f);
    }
    // This very file shares: it replaces nothing.
    expect(isolated).not.toContain('test/scripts/unit-projects.test.ts');
    expect(shared.exclude).not.toContain('test/scripts/unit-projects.test.ts');
  });

  test('the shared graph puts back what a file changed: environment, working folder, timers, spies', () => {
    const original = { cwd: process.cwd(), random: Math.random, path: process.env.PATH };
    const restore = keepProcess();
    process.env.RLWATCH_UNIT_PROJECTS_TEST = 'set';
    process.env.PATH = '/nowhere';
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    vi.useFakeTimers();
    process.chdir('test');
    try {
      restore();
      expect(process.env.RLWATCH_UNIT_PROJECTS_TEST).toBeUndefined();
      expect(process.env.PATH).toBe(original.path);
      expect(process.cwd()).toBe(original.cwd);
      expect(Math.random).toBe(original.random);
      expect(vi.isFakeTimers()).toBe(false);
    } finally {
      process.chdir(original.cwd);
      vi.useRealTimers();
      vi.restoreAllMocks();
      process.env.PATH = original.path;
      delete process.env.RLWATCH_UNIT_PROJECTS_TEST;
    }
  });
});
