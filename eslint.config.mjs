import eslint from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** One no-restricted-imports config per layer rule (a later config for the same file would replace an earlier one's options). */
function layerRules(rules) {
  return rules.map(({ files, ignores, regex, message }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex, message }] }] },
  }));
}

// A workflow type as a string is checked by nothing: pass the workflow function, so a rename or a
// changed input type fails the typecheck instead of a run.
const WORKFLOW_BY_FUNCTION = {
  selector:
    "CallExpression[callee.property.name=/^(start|execute|signalWithStart)$/][callee.object.property.name='workflow'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
  message: 'Start workflows with the workflow function (client.workflow.start(runWorkflow, …)), not its name.',
};

// `x.family === 'evm'`, `family !== "solana"` (either side), `switch (x.family) { case 'evm': … }`.
const FAMILY_BRANCH_MESSAGE = 'Do not branch on a chain family outside src/chains: ask the registry for its adapter (chainAdapter, chainOfRun) and call it (STYLE rule 15).';
const NO_FAMILY_BRANCHES = [
  `BinaryExpression[operator=/^[!=]==?$/]:matches([left.type='MemberExpression'][left.property.name='family'], [left.type='Identifier'][left.name='family'])[right.type=/^(Literal|TemplateLiteral)$/]`,
  `BinaryExpression[operator=/^[!=]==?$/]:matches([right.type='MemberExpression'][right.property.name='family'], [right.type='Identifier'][right.name='family'])[left.type=/^(Literal|TemplateLiteral)$/]`,
  "SwitchStatement:matches([discriminant.type='MemberExpression'][discriminant.property.name='family'], [discriminant.type='Identifier'][discriminant.name='family']) > SwitchCase[test.type=/^(Literal|TemplateLiteral)$/]",
].map((selector) => ({ selector, message: FAMILY_BRANCH_MESSAGE }));

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/', 'packages/*/dist/', 'packages/*/node_modules/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', WORKFLOW_BY_FUNCTION],
    },
  },
  {
    // What differs by chain family is the family's adapter's business (STYLE rule 15): outside
    // src/chains nothing branches on a family name; it asks the registry for the adapter.
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/chains/**'],
    rules: { 'no-restricted-syntax': ['error', WORKFLOW_BY_FUNCTION, ...NO_FAMILY_BRANCHES] },
  },
  // Layers point one way (STYLE rule 5): http → services → db → domain; activities → probe/db/domain
  // and src/chains/registry.ts; probe → net → domain (net is the outbound guard shared by probes and
  // webhook delivery);
  // domain imports nothing of ours. Relative imports that leave a folder the wrong way are refused;
  // `npm run lint:cycles` (madge) refuses import circles.
  ...layerRules([
    {
      files: ['src/domain/*.ts'],
      regex: '^(\\.\\./|(postgres|undici|pino)$|fastify|@temporalio/|node:(fs|net|http|https|dns|child_process))',
      message: 'src/domain is pure: nothing of ours outside src/domain, no I/O library (STYLE rules 5 and 9).',
    },
    {
      files: ['src/domain/*/**/*.ts'],
      regex: '^(\\.\\./\\.\\./|(postgres|undici|pino)$|fastify|@temporalio/|node:(fs|net|http|https|dns|child_process))',
      message: 'src/domain is pure: nothing of ours outside src/domain, no I/O library (STYLE rules 5 and 9).',
    },
    {
      // migrate-cli.ts is an entry point (npm run migrate): it parses the config like src/server.ts.
      files: ['src/db/**/*.ts'],
      ignores: ['src/db/migrate-cli.ts', 'src/db/migrate.ts'],
      regex: '^\\.\\./(?!domain/)',
      message: 'src/db imports only src/domain.',
    },
    {
      // The migrate step seeds the catalog's built-in rows from the chain registry (pure data).
      files: ['src/db/migrate.ts'],
      regex: '^\\.\\./(?!domain/|chains/registry$)',
      message: 'src/db/migrate.ts imports only src/domain and src/chains/registry.',
    },
    {
      // The outbound guard every connection goes through: pure policy (domain), node built-ins and undici.
      files: ['src/net/**/*.ts'],
      regex: '^(\\.\\./(?!domain/)|(?!\\.|node:|undici$))',
      message: 'src/net imports only src/domain, node: built-ins and undici.',
    },
    {
      // The probe reads answers under the envelope and rules its caller's ChainAdapter gives it.
      files: ['src/probe/**/*.ts'],
      regex: '^\\.\\./(?!domain/|net/|chains/types$)',
      message: 'src/probe imports only src/domain, src/net and src/chains/types (no database access: activities store what it measures).',
    },
    // Chain families (STYLE rule 15): src/chains/<family>/ imports only its own folder, src/domain,
    // src/net (the outbound guard, for a family that brings its own transport) and the adapter
    // types and plain hooks; only src/chains/registry.ts imports a family folder.
    {
      files: ['src/chains/*/**/*.ts'],
      regex: '^(\\.\\./(?!types$|plain$|head-subscriptions$|\\.\\./(domain|net)/)|(postgres|undici|pino)$|fastify|@temporalio/|node:(fs|net|http|https|dns|child_process))',
      message: 'src/chains/<family> imports only src/domain, src/net, ../types, ../plain (the shared trivial hooks) and ../head-subscriptions (the notification shapes): no other family, no registry, no I/O library of its own (STYLE rules 5 and 15).',
    },
    {
      files: ['src/chains/*.ts'],
      regex: '^(\\.\\./(?!domain/)|(postgres|undici|pino)$|fastify|@temporalio/|node:(fs|net|http|https|dns|child_process))',
      message: 'src/chains is pure: it imports only src/domain and its own family folders (STYLE rules 5 and 15).',
    },
    {
      files: ['src/**/*.ts', 'activities/**/*.ts', 'bench/**/*.ts'],
      ignores: ['src/chains/**', 'src/domain/**', 'src/db/**', 'src/probe/**', 'src/cli/**', 'src/services/**'],
      regex: 'chains/(?!registry$|types$)[^/]+',
      message: 'Reach a chain family through src/chains/registry.ts, never its folder (STYLE rule 15).',
    },
    {
      // The CLI is installed on its own (packages/cli bundles src/cli and what it imports): nothing
      // of the server may come along, and the only npm libraries are the two it bundles (yaml, zod).
      files: ['src/cli/**/*.ts'],
      regex: '^(\\.\\./(?!domain/)|(?!\\.|node:|yaml$|zod$))',
      message: 'src/cli imports only src/cli, src/domain, node: built-ins, yaml and zod (what packages/cli bundles).',
    },
    {
      // Any depth: a verb in a folder of its own (src/services/runs/) is held to the same rule.
      files: ['src/services/**/*.ts'],
      regex: '^(\\.\\./)+((http|dashboard)/|chains/(?!registry$|types$))',
      message: 'Services do not import the HTTP layer (routes call services, never the other way), nor a chain family folder (only src/chains/registry.ts).',
    },
  ]),
  {
    // Workflow code is replayed and must be deterministic: no Node built-ins, no I/O.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({ name, message: 'Node built-ins are not allowed in workflow code.' })),
          patterns: [
            { group: ['node:*'], message: 'Node built-ins are not allowed in workflow code.' },
            { regex: 'chains/(?!registry$|types$)[^/]+', message: 'Reach a chain family through src/chains/registry.ts, never its folder (STYLE rule 15).' },
            { group: ['**/activities', '**/activities/*', '!**/activities/types'], message: 'Import activities by type only.', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
