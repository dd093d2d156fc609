import { issueCursor, readCursor } from '../../../src/context/cursor.js';
import type { Viewer } from '../../../src/auth/viewer.js';

/** Paging cursors are signed under CURSOR_SECRET (or a key of the process's own) and bound to their team. */
const team = (id: number) =>
  ({ isOperator: false, team: { id }, user: null, credential: { rateKey: 'k' } }) as unknown as Viewer;
const args = { query: 'quartz', projectId: 3 };

describe('paging cursors', () => {
  it('read back under the secret that signed them, also after another secret was used in between', () => {
    const a = { cursorSecret: 'a'.repeat(32) };
    const b = { cursorSecret: 'b'.repeat(32) };
    const fromA = issueCursor(a, team(1), 'search', args, { offset: 10 });
    const fromB = issueCursor(b, team(1), 'search', args, { offset: 20 });
    expect(readCursor(a, team(1), 'search', args, fromA)).toEqual({ offset: 10 });
    expect(readCursor(b, team(1), 'search', args, fromB)).toEqual({ offset: 20 });
    expect(() => readCursor(b, team(1), 'search', args, fromA)).toThrow(/not a cursor this server issued/);
    expect(() => readCursor(a, team(1), 'search', args, fromB)).toThrow(/not a cursor this server issued/);
    expect(readCursor(a, team(1), 'search', args, fromA)).toEqual({ offset: 10 });
  });

  it('without a secret, are signed by the process key and refused under a configured one', () => {
    const none = { cursorSecret: null };
    const cursor = issueCursor(none, team(1), 'find', args, 5);
    expect(readCursor(none, team(1), 'find', args, cursor)).toBe(5);
    expect(() => readCursor({ cursorSecret: 'c'.repeat(32) }, team(1), 'find', args, cursor)).toThrow(
      /not a cursor this server issued/,
    );
  });

  it('answer only their team, operation and arguments', () => {
    const config = { cursorSecret: 'd'.repeat(32) };
    const cursor = issueCursor(config, team(1), 'search', args, 1);
    expect(() => readCursor(config, team(2), 'search', args, cursor)).toThrow(/another team/);
    expect(() => readCursor(config, team(1), 'find', args, cursor)).toThrow(/another query/);
    expect(() => readCursor(config, team(1), 'search', { ...args, query: 'oak' }, cursor)).toThrow(
      /another query/,
    );
    expect(() => readCursor(config, team(1), 'search', args, `${cursor}x`)).toThrow(/not a cursor/);
  });
});
