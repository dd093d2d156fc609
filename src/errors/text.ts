import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * Text PostgreSQL cannot hold: U+0000 (no `text` or `jsonb` value may contain it, and on the wire
 * it ends a protocol string) and unpaired UTF-16 surrogates (no UTF-8 form; `jsonb` refuses their
 * escapes, `text` would silently store U+FFFD). Such text is the caller's bad input, refused at the
 * entry point before any statement, never a database error.
 */
export const UNSTORABLE_TEXT =
  // eslint-disable-next-line no-control-regex -- matching NUL is the point
  /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT_RULE = 'must not contain NUL characters or unpaired surrogates';

/**
 * The dotted path of the first string (or object key) in `value` that is unstorable text, or null.
 * Iterative, so a deeply nested value cannot exhaust the stack. Every request's variables pass
 * through here, nearly always clean: a first pass looks without building paths, and only a value
 * that holds such text is walked again for the path.
 */
export function unstorableTextAt(value: unknown, root = ''): string | null {
  return holdsUnstorableText(value) ? pathToUnstorableText(value, root) : null;
}

function holdsUnstorableText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (UNSTORABLE_TEXT.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        if (UNSTORABLE_TEXT.test(keys[i])) return true;
        stack.push((v as Record<string, unknown>)[keys[i]]);
      }
    }
  }
  return false;
}

function pathToUnstorableText(value: unknown, root: string): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE_TEXT.test(v)) return path || 'input';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        if (UNSTORABLE_TEXT.test(k)) return at;
        stack.push([inner, at]);
      }
    }
  }
  return null;
}

/**
 * A validation rule refusing string literals of unstorable text in a GraphQL document. Its message
 * reads as a literal's coercion error, which the GraphQL facade reports as BAD_USER_INPUT.
 */
export function storableTextLiterals(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (UNSTORABLE_TEXT.test(node.value)) {
        context.reportError(
          new GraphQLError(
            `String cannot represent a value that contains NUL characters or unpaired surrogates`,
            {
              nodes: node,
            },
          ),
        );
      }
    },
  };
}
