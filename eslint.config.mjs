import eslint from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/'] },
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
      'no-restricted-syntax': [
        'error',
        {
          // A workflow type as a string is checked by nothing: pass the workflow function, so a
          // rename or a changed input type fails the typecheck instead of a run.
          selector:
            "CallExpression[callee.property.name=/^(start|execute|signalWithStart)$/][callee.object.property.name='workflow'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
          message: 'Start workflows with the workflow function (client.workflow.start(runWorkflow, …)), not its name.',
        },
      ],
    },
  },
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
            { group: ['**/activities', '**/activities/*', '!**/activities/types'], message: 'Import activities by type only.', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
