// ESLint: the recommended rules and the type-aware ones that catch real bugs (a promise nobody awaits, a promise
// where a callback's result is ignored); formatting is Prettier's (eslint-config-prettier turns off what it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** http reaches storage only through the domain (src/domain/). */
const HTTP_TO_STORAGE = [
  { regex: '^(\\.\\./)+storage/', message: 'http reaches storage only through the domain (src/domain/)' },
  { regex: '^kysely$', message: 'http reaches storage only through the domain (src/domain/)' },
];

/** The folders of src/http/ that are surfaces (docs/layout.md). */
const SURFACES = ['protocol', 'pages', 'admin-api', 'scim', 'console', 'operations', 'saml'];

/** An import of another surface's file. */
function otherSurface(surface) {
  const others = SURFACES.filter((other) => other !== surface).join('|');
  return `^(\\.\\./)+(${others})/`;
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-bench/', 'dist-test-*/', 'coverage/', '.tap/', 'data/', 'bench-results/', 'eval-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // tap queues every t.test() and waits for it: a test file's top-level subtests are not floating promises.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  // The layers run one way (STYLE.md): http -> domain -> storage. Storage never imports the domain or http; http
  // reaches storage only through the domain; the domain imports neither Fastify nor Kysely. A type counts as an import.
  {
    files: ['src/storage/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(domain|http|cli|jobs)/',
              message: 'storage never imports the domain, http, cli or jobs: move the shared piece down, or let the caller pass it in',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(\\.\\./)+(http|cli|jobs)/', message: 'the domain never imports http, cli or jobs' },
            {
              regex: '^(fastify|@fastify/.*|kysely)$',
              message: 'the domain knows nothing of Fastify or SQL: queries live in src/storage/',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: HTTP_TO_STORAGE }] },
  },
  // src/http/ by surface: each surface folder imports src/http/'s shared files and the domain, never another surface's
  // files (what two surfaces need belongs in src/http/ itself).
  ...SURFACES.map((surface) => ({
    files: [`src/http/${surface}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...HTTP_TO_STORAGE,
            {
              regex: otherSurface(surface),
              message: `src/http/${surface}/ imports no other surface: move what both need to src/http/`,
            },
          ],
        },
      ],
    },
  })),
  prettier,
  // No line over 140 characters. Prettier wraps code; comments are checked here. A string or template literal may run
  // past it: a message split over lines can no longer be found with grep.
  {
    rules: {
      'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true, ignoreStrings: true, ignoreTemplateLiterals: true }],
    },
  },
);
