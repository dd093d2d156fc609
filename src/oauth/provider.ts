import type { EntityManager } from '@mikro-orm/postgresql';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Response } from 'express';
import { PgClientsStore } from './clients.store.js';
import { isMetadataDocumentClientId, type ClientMetadataDocuments } from './client-metadata-document.js';
import { beginAuthorization, challengeForCode, exchangeCode } from './grant.service.js';
import { describeAccessToken, revokeClientToken, rotateRefreshToken } from './token.service.js';
import type { OAuthUrls } from './urls.js';

/**
 * The storage and policy behind the MCP SDK's authorization-server handlers. The handlers do the
 * protocol (parameter validation, exact redirect matching, PKCE verification, error bodies); this
 * class keeps every step in PostgreSQL and hands the interactive part to the consent page.
 */
export class PdsOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: PgClientsStore;

  constructor(
    private readonly em: EntityManager,
    private readonly urls: OAuthUrls,
    documents: ClientMetadataDocuments,
  ) {
    this.clientsStore = new PgClientsStore(em, documents);
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: Response,
  ): Promise<void> {
    // The SDK's handler lets a loopback redirect differ in port from a registered one (RFC 8252,
    // for native apps that registered once); a metadata document is published by the client
    // itself, so its redirect URIs are used exactly as written there. Answered here, not
    // redirected: the URI is not one the client published.
    if (isMetadataDocumentClientId(client.client_id) && !client.redirect_uris.includes(params.redirectUri)) {
      res.status(400).set('cache-control', 'no-store').json({
        error: 'invalid_request',
        error_description:
          "redirect_uri must be exactly one of the redirect_uris in the client's metadata document",
      });
      return;
    }
    const id = await beginAuthorization(this.em.fork(), client, params, this.urls.mcpResource);
    res.redirect(302, `${this.urls.consent}?request=${encodeURIComponent(id)}`);
  }

  challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    return challengeForCode(this.em.fork(), client.client_id, code);
  }

  exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    return exchangeCode(this.em.fork(), client, code, redirectUri, resource);
  }

  exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
    scopes?: string[],
    resource?: URL,
  ): Promise<OAuthTokens> {
    return rotateRefreshToken(this.em.fork(), client.client_id, refreshToken, { scopes, resource });
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = await describeAccessToken(this.em.fork(), token);
    if (!info) throw new InvalidTokenError('The access token is invalid, expired or revoked');
    return info;
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return revokeClientToken(this.em.fork(), client.client_id, request.token);
  }
}
