import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import formatjs from 'eslint-plugin-formatjs';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', 'public', 'tests/artifacts', 'tests/fixtures', 'lang/*.json', '.cache', 'bench/results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, formatjs },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'formatjs/enforce-id': ['error', { idInterpolationPattern: '[sha512:contenthash:base64:6]', idWhitelist: ['^[a-z][A-Za-z0-9]*(\\.[A-Za-z0-9]+)+$'] }],
      'formatjs/enforce-description': 'off',
      'formatjs/enforce-default-message': ['error', 'literal'],
      'formatjs/no-literal-string-in-jsx': 'error',
      'formatjs/enforce-placeholders': 'error',
      'formatjs/no-multiple-whitespaces': 'error',
      'no-console': 'error',
      // The oldest phones docs/browsers.md names lack these (iOS Safari before
      // 15.4, Android WebViews before 92): src/services/compat.ts has the fallbacks.
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='at']", message: 'Array.prototype.at is missing before iOS 15.4: use lastOf() from services/compat.ts or an index.' },
        { selector: "MemberExpression[object.name='crypto'][property.name='randomUUID']", message: 'Use randomUUID() from services/compat.ts.' },
        { selector: "CallExpression[callee.property.name='throwIfAborted']", message: 'Use throwIfAborted() from services/compat.ts.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'react-redux',
              importNames: ['useSelector', 'useDispatch'],
              message: 'Use the typed useAppSelector/useAppDispatch from src/app/hooks.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.test.{ts,tsx}', 'src/test/**', 'src/**/testing/**'],
    rules: {
      'formatjs/no-literal-string-in-jsx': 'off',
      // The client tests share their modules across files (isolate: false, vite.config.ts): a
      // module mock would reach only the files that ran before anything imported the module.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='vi'][callee.property.name=/^(mock|doMock)$/]",
          message: 'Client tests share their modules across files: inject the dependency, or set and restore it around the test (src/test/specialAccount.ts).',
        },
      ],
    },
  },
);
