import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { CONNECTOR_SCOPES } from './grant.service.js';
import type { OAuthUrls } from './urls.js';

/**
 * RFC 8414 authorization server metadata. Built here rather than with the SDK's
 * `createOAuthMetadata`, which fixes the endpoints at the root and advertises client secrets;
 * this server keeps its endpoints under /oauth and registers public (PKCE) clients only. A client
 * may also skip registration and use the HTTPS URL of its metadata document as its client id
 * (src/oauth/client-metadata-document.ts); dynamic registration stays for the clients that cannot.
 */
export function authorizationServerMetadata(urls: OAuthUrls): OAuthMetadata {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...CONNECTOR_SCOPES],
    client_id_metadata_document_supported: true,
  };
}

/** RFC 9728 metadata for the `/mcp` resource (the MCP facade points clients to it). */
export function protectedResourceMetadata(urls: OAuthUrls): OAuthProtectedResourceMetadata {
  return {
    resource: urls.mcpResource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...CONNECTOR_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Property Data Service',
  };
}
