/**
 * The one error catalogue. Every error a client can see has a stable code here, with its HTTP
 * status (REST), its GraphQL `extensions.code`, and how the MCP facade reports it. Each facade maps
 * an AppError exactly once; anything else is masked as INTERNAL after being logged.
 */
export const ERROR_CATALOGUE = {
  CREDENTIAL_MISSING: {
    http: 401,
    graphql: 'UNAUTHENTICATED',
    mcp: 'http-401',
    message: 'No API key or token supplied',
  },
  CREDENTIAL_INVALID: {
    http: 401,
    graphql: 'UNAUTHENTICATED',
    mcp: 'http-401',
    message: 'The API key or token is invalid, inactive or expired',
  },
  FORBIDDEN: {
    http: 403,
    graphql: 'FORBIDDEN',
    mcp: 'tool-error',
    message: 'Not allowed for this credential',
  },
  SCOPE_MISSING: {
    http: 403,
    graphql: 'FORBIDDEN',
    mcp: 'tool-error',
    message: 'The key lacks the required scope',
  },
  PLAN_UPGRADE_REQUIRED: {
    http: 403,
    graphql: 'FORBIDDEN',
    mcp: 'tool-error',
    message: "The team's plan does not include this feature",
  },
  RATE_LIMITED: { http: 429, graphql: 'RATE_LIMITED', mcp: 'tool-error', message: 'Rate limit exceeded' },
  BAD_USER_INPUT: { http: 422, graphql: 'BAD_USER_INPUT', mcp: 'tool-error', message: 'Invalid input' },
  NOT_FOUND: { http: 404, graphql: 'NOT_FOUND', mcp: 'tool-error', message: 'Not found' },
  CONFLICT: { http: 409, graphql: 'CONFLICT', mcp: 'tool-error', message: 'Conflict' },
  /** The database (or the request's own deadline) cannot serve now: 503 with Retry-After; MCP a JSON-RPC error keeping the id. */
  SERVICE_UNAVAILABLE: {
    http: 503,
    graphql: 'SERVICE_UNAVAILABLE',
    mcp: 'unavailable',
    message: 'The service is temporarily unavailable: retry shortly',
  },
  INTERNAL: { http: 500, graphql: 'INTERNAL_SERVER_ERROR', mcp: 'internal', message: 'Internal error' },
} as const satisfies Record<
  string,
  {
    http: number;
    graphql: string;
    mcp: 'http-401' | 'tool-error' | 'unavailable' | 'internal';
    message: string;
  }
>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface AppErrorDetails {
  /** Field path → messages, for BAD_USER_INPUT (dotted paths: `listings.3.bedrooms`). */
  fields?: Record<string, string[]>;
  scope?: string;
  requiredPlans?: string[];
  retryAfterSeconds?: number;
  /**
   * What was not found (NOT_FOUND): a facade may add how its own callers find a valid one (the MCP
   * tools name the tool to call). Domain messages name domain fields and no transport's arguments.
   */
  subject?: 'project' | 'chunk' | 'document';
  /** The limiter's decision, for rate-limit headers on a refused request. */
  rate?: { limit: number; remaining: number; resetSeconds: number };
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: AppErrorDetails;

  constructor(code: ErrorCode, message?: string, details: AppErrorDetails = {}) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.code].http;
  }

  get graphqlCode(): string {
    return ERROR_CATALOGUE[this.code].graphql;
  }
}

/** A BAD_USER_INPUT error for one field, with the field named in the message. */
export function badInput(field: string, problem: string): AppError {
  return new AppError('BAD_USER_INPUT', `${field}: ${problem}`, { fields: { [field]: [problem] } });
}

/** Maps a GraphQL extensions.code back to the catalogue entry (used by facades executing GraphQL). */
export function codeFromGraphql(extensionsCode: unknown, appCode: unknown): ErrorCode {
  if (typeof appCode === 'string' && appCode in ERROR_CATALOGUE) return appCode as ErrorCode;
  switch (extensionsCode) {
    case 'UNAUTHENTICATED':
      return 'CREDENTIAL_INVALID';
    case 'FORBIDDEN':
      return 'FORBIDDEN';
    case 'BAD_USER_INPUT':
    case 'GRAPHQL_VALIDATION_FAILED':
      return 'BAD_USER_INPUT';
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    case 'RATE_LIMITED':
      return 'RATE_LIMITED';
    case 'SERVICE_UNAVAILABLE':
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}
