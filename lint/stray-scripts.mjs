// ESLint rule `rlwatch/no-stray-scripts`: a script at the repository root is one of the project's config files;
// anything else there (a `dbg.tmp.ts` left behind) is an error that names where such code belongs.

import { basename } from 'node:path';

/** The plugin: `allowed` the root file names that are the project's own configuration. */
export function strayScriptsPlugin(/** @type {{ allowed: string[] }} */ opts) {
  const allowed = new Set(opts.allowed);
  return {
    rules: {
      'no-stray-scripts': {
        meta: {
          type: 'problem',
          docs: { description: 'no stray scripts at the repository root' },
          schema: [],
        },
        create(context) {
          return {
            Program(node) {
              const name = basename(context.filename);
              if (allowed.has(name)) return;
              context.report({
                node,
                message: `${name} is a stray script at the repository root: scripts go in scripts/, benchmarks in bench/, tests in test/ (a debug script is not committed)`,
              });
            },
          };
        },
      },
    },
  };
}
