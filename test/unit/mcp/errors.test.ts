import { JSONRPC, mcpFailure } from '../../../facades/mcp/errors.js';
import { AppError, badInput, ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.js';

const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('the MCP error mapper reads the catalogue', () => {
  it.each(codes)('%s answers as its mcp column says', (code) => {
    const err = new AppError(code, 'what went wrong', { retryAfterSeconds: 7 });
    const inCall = mcpFailure(err, true);
    const before = mcpFailure(err, false);
    switch (ERROR_CATALOGUE[code].mcp) {
      case 'tool-error':
        expect(inCall).toMatchObject({ kind: 'result', result: { isError: true } });
        expect(before).toMatchObject({
          kind: 'error',
          status: ERROR_CATALOGUE[code].http,
          code: JSONRPC.SERVER_ERROR,
        });
        break;
      case 'http-401':
        for (const f of [inCall, before])
          expect(f).toEqual({
            kind: 'error',
            status: 401,
            code: JSONRPC.INVALID_REQUEST,
            message: 'what went wrong',
            challenge: true,
          });
        break;
      case 'unavailable':
        for (const f of [inCall, before])
          expect(f).toEqual({
            kind: 'error',
            status: 503,
            code: JSONRPC.SERVER_ERROR,
            message: 'what went wrong',
            retryAfterSeconds: 7,
          });
        break;
      case 'internal':
        // Nothing of the cause reaches the client.
        for (const f of [inCall, before])
          expect(f).toEqual({
            kind: 'error',
            status: 500,
            code: JSONRPC.INTERNAL,
            message: 'Internal error',
          });
        break;
    }
  });

  it('words a tool failure for the model: what to do next', () => {
    const limited = mcpFailure(
      new AppError('RATE_LIMITED', 'Rate limit exceeded', { retryAfterSeconds: 12 }),
      true,
    );
    expect(limited).toEqual({
      kind: 'result',
      result: {
        content: [{ type: 'text', text: 'Rate limit exceeded: wait 12 seconds before calling again.' }],
        isError: true,
      },
    });
    const bad = mcpFailure(new AppError('BAD_USER_INPUT', 'limit: must be an integer from 1 to 25'), true);
    expect(bad).toMatchObject({
      result: { content: [{ text: 'Invalid arguments: limit: must be an integer from 1 to 25' }] },
    });
    // Refused before any method ran, a rate limit still says when to come back.
    expect(
      mcpFailure(new AppError('RATE_LIMITED', 'Rate limit exceeded', { retryAfterSeconds: 12 }), false),
    ).toMatchObject({
      status: 429,
      retryAfterSeconds: 12,
    });
  });

  it('words domain errors for the tools: snake_case arguments and which tool finds a valid id', () => {
    const field = mcpFailure(badInput('projectId', 'must be a positive integer'), true);
    expect(field).toMatchObject({
      result: { content: [{ text: 'Invalid arguments: project_id: must be a positive integer' }] },
    });
    const missing = mcpFailure(
      new AppError('NOT_FOUND', 'project 7 not found', { subject: 'project' }),
      true,
    );
    expect(missing).toMatchObject({
      result: { content: [{ text: 'project 7 not found; use list-projects to find project ids' }] },
    });
  });
});
