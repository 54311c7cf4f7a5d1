// Lint: eslint's recommended rules and typescript-eslint's, over src/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(js.configs.recommended, ...tseslint.configs.recommended, {
  ignores: ['out/**', 'node_modules/**'],
});
