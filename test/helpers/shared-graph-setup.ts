// Runs before each unit test file that shares its worker's module graph (vitest.config.ts): what the file changed in
// the process is put back before the next file (helpers/process-keeper.ts).
import { afterAll } from 'vitest';
import { keepProcess } from './process-keeper';

afterAll(keepProcess());
