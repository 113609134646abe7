// ESLint rule `rlwatch/layers`: every import under src/ must be allowed by the layering table in eslint.config.mjs.

import { builtinModules } from 'node:module';
import { statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const NODE_BUILTINS = new Set(builtinModules);
const TABLE_HINT = 'the layering table in eslint.config.mjs';

/**
 * @typedef {{ imports: string[]; packages: string[]; node: boolean; typesOnly?: string[]; typePackages?: string[] }} Runtime
 * @typedef {{ src: string; runtimes: Record<string, Runtime>; coreOrder: string[][] }} LayerTable
 */

/** The plugin for one table: `src` the absolute path of src/, `runtimes` its top folders, `coreOrder` lowest first. */
export function layersPlugin(/** @type {LayerTable} */ table) {
  const tierOf = new Map(table.coreOrder.flatMap((line, tier) => line.map((part) => [part, tier])));
  // Longest first: a file belongs to the most specific part that holds it.
  const coreParts = [...tierOf.keys()].sort((a, b) => b.length - a.length);

  /** The longest part of the core order holding a path under src/core: 'readers/csv-reader' → 'readers'. */
  const corePartOf = (/** @type {string} */ inCore) =>
    coreParts.find((part) => inCore === part || inCore.startsWith(`${part}/`)) ?? null;

  /** A path under src/ without its extension, a folder import resolved to its index. */
  const modulePath = (/** @type {string} */ absolute) => {
    let path = absolute;
    try {
      if (statSync(path).isDirectory()) path = `${path}/index`;
    } catch {
      // Not on disk as written (an import without its extension): the path is the module.
    }
    return relative(table.src, path)
      .split('\\')
      .join('/')
      .replace(/\.(d\.)?(ts|mts|cts|js|mjs|cjs)$/, '');
  };

  /** Why `fromFile` may not import `spec` (`typeOnly`: an `import type`), or null. */
  function refusal(
    /** @type {string} */ fromFile,
    /** @type {string} */ spec,
    /** @type {boolean} */ typeOnly,
  ) {
    const from = modulePath(fromFile);
    const runtime = from.split('/')[0];
    const allowed = table.runtimes[runtime];
    if (!allowed) return `src/${from} is in no runtime of ${TABLE_HINT}`;
    const fromPart = runtime === 'core' ? corePartOf(from.slice('core/'.length)) : null;
    if (runtime === 'core' && fromPart === null)
      return `src/${from} is in no line of the core order (${TABLE_HINT})`;

    if (!spec.startsWith('.')) {
      const isNode = spec.startsWith('node:') || NODE_BUILTINS.has(spec.split('/')[0]);
      if (isNode) return allowed.node ? null : `${runtime} runs without Node: no '${spec}'`;
      const pkg = spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/');
      if (allowed.packages.includes(pkg)) return null;
      if ((allowed.typePackages ?? []).includes(pkg))
        return typeOnly ? null : `${runtime} may import only types from '${pkg}' (${TABLE_HINT})`;
      return `'${pkg}' is not an npm package ${runtime} may use (${allowed.packages.join(', ') || 'none'}; ${TABLE_HINT})`;
    }

    const target = modulePath(resolve(dirname(fromFile), spec));
    if (target.startsWith('..')) return `'${spec}' is outside src/`;
    const targetRuntime = target.split('/')[0];
    if (targetRuntime !== runtime) {
      const typesOnly = (allowed.typesOnly ?? []).find((m) => target === m || target.startsWith(`${m}/`));
      if (typesOnly && !typeOnly) return `${runtime} may import only types from ${typesOnly} (${TABLE_HINT})`;
      return allowed.imports.includes(targetRuntime)
        ? null
        : `${runtime} may import ${allowed.imports.join(', ') || 'nothing of the app'} besides itself, not ${targetRuntime} (${TABLE_HINT})`;
    }
    if (runtime !== 'core') return null;

    const targetPart = corePartOf(target.slice('core/'.length));
    if (targetPart === null) return `src/${target} is in no line of the core order (${TABLE_HINT})`;
    if (targetPart === fromPart) return null;
    return (tierOf.get(targetPart) ?? 0) < (tierOf.get(fromPart) ?? 0)
      ? null
      : `core/${fromPart} may import only lower lines of the core order, not core/${targetPart} (${TABLE_HINT})`;
  }

  return {
    rules: {
      layers: {
        meta: {
          type: 'problem',
          docs: { description: 'Layers import only downward; each runtime uses only its npm packages.' },
          messages: { refused: "'{{spec}}' refused: {{reason}}." },
          schema: [],
        },
        create(context) {
          const check = (/** @type {any} */ source, typeOnly = false) => {
            if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
            const reason = refusal(context.physicalFilename, source.value, typeOnly);
            if (reason)
              context.report({ node: source, messageId: 'refused', data: { spec: source.value, reason } });
          };
          return {
            ImportDeclaration: (node) =>
              check(
                node.source,
                node.importKind === 'type' ||
                  (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type')),
              ),
            ExportNamedDeclaration: (node) => check(node.source, node.exportKind === 'type'),
            ExportAllDeclaration: (node) => check(node.source, node.exportKind === 'type'),
            ImportExpression: (node) => check(node.source),
          };
        },
      },
    },
  };
}
