import { classifyDbError, unavailableError } from '../../../src/db/availability.js';
import { ClientGone, DeadlineExceeded } from '../../../src/errors/aborted.js';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('database failure classification', () => {
  it.each([
    ['connection refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unavailable'],
    ['connection reset', coded('ECONNRESET'), 'unavailable'],
    [
      'admin shutdown (server stopping)',
      coded('57P01', 'terminating connection due to administrator command'),
      'unavailable',
    ],
    ['server starting up', coded('57P03'), 'unavailable'],
    ['connection exception class 08', coded('08006'), 'unavailable'],
    ['connection ended by the server', new Error('Connection terminated unexpectedly'), 'unavailable'],
    [
      'a server that accepts but never answers',
      new Error('Connection terminated due to connection timeout'),
      'unavailable',
    ],
    ['a server that stopped answering mid-query', new Error('Query read timeout'), 'unavailable'],
    [
      'refused on both addresses (aggregate)',
      new AggregateError([coded('ECONNREFUSED')], 'connect failed'),
      'unavailable',
    ],
    [
      'wrapped by the ORM',
      Object.assign(new Error('driver failed'), { cause: coded('ECONNREFUSED') }),
      'unavailable',
    ],
    ['statement_timeout', coded('57014', 'canceling statement due to statement timeout'), 'busy'],
    ['pg-pool queue timeout', new Error('timeout exceeded when trying to connect'), 'busy'],
    ['too many connections', coded('53300'), 'busy'],
    ['a unique violation is a bug or bad input, not availability', coded('23505'), null],
    ['a plain error', new Error('boom'), null],
  ])('%s', (_name, err, expected) => {
    expect(classifyDbError(err)).toBe(expected);
  });

  it('maps database failures and ended requests to the catalogued 503, and nothing else', () => {
    expect(unavailableError(coded('ECONNREFUSED'), 3)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable: retry in 3 seconds',
      details: { retryAfterSeconds: 3 },
    });
    expect(unavailableError(new Error('timeout exceeded when trying to connect'), 3)?.message).toBe(
      'The server is busy: retry in 3 seconds',
    );
    expect(unavailableError(new DeadlineExceeded(100), 3)?.code).toBe('SERVICE_UNAVAILABLE');
    expect(unavailableError(new ClientGone(), 3)?.code).toBe('SERVICE_UNAVAILABLE');
    expect(unavailableError(new Error('boom'), 3)).toBeNull();
  });
});
