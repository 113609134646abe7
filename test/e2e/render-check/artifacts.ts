// Where the render check keeps its screenshots: a git-ignored folder of the test run's artifacts.

import { join } from 'node:path';

export const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-results', 'render-check');
