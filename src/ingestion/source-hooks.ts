/**
 * Lets a child process run the project's TypeScript sources (jest runs from source; `dist/` needs
 * none of this): Node strips the types, and this hook maps the `.js` specifiers the sources use
 * (NodeNext style) to the `.ts` files beside them. Passed with `--import` by extract.ts.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!/^\.\.?\//.test(specifier) || !specifier.endsWith('.js')) throw error;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
