import type { Transport } from '../auth/authenticate.js';
import type { Viewer } from '../auth/viewer.js';
import type { AppConfig } from '../config.js';
import { AppError } from '../errors/catalogue.js';
import { resourceOf, sameResource } from './urls.js';

/**
 * RFC 8707 audience restriction: a connector token is bound to the resource it was issued for
 * (the `/mcp` URL) and refused by every other transport, so a token handed to an AI client cannot
 * be replayed against the GraphQL or REST APIs.
 */
export function assertAudience(
  viewer: Viewer,
  transport: Transport,
  config: Pick<AppConfig, 'publicBaseUrl'>,
): void {
  if (viewer.credential.kind !== 'oauth-token') return;
  const expected = resourceOf(transport, config);
  const bound = viewer.credential.resource;
  if (!bound || !sameResource(bound, expected)) {
    throw new AppError(
      'CREDENTIAL_INVALID',
      `This token was issued for ${bound ?? 'another resource'}, not for ${expected}`,
    );
  }
}
