import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { AccessTokenSchema } from '../credentials/credential.entity.js';
import { TeamSchema, UserSchema } from '../accounts/team.entity.js';

/**
 * An OAuth client: dynamically registered (RFC 7591; its id a UUID, `metadata` the registration
 * response as returned, so the client reads back exactly what it was told), or known by its
 * metadata document (its id the document's HTTPS URL, `metadata` the document as last fetched).
 */
export const OAuthClientSchema = defineEntity({
  name: 'OAuthClient',
  properties: {
    id: p.string().length(2048).primary(),
    clientName: p.string().length(200).nullable(),
    redirectUris: p.array().columnType('text[]'),
    metadata: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type OAuthClient = InferEntity<typeof OAuthClientSchema>;

/**
 * One run of the authorization-code flow: created at /oauth/authorize, approved on the consent page
 * (user, team and the code's hash are set), exchanged once at the token endpoint. Stored, not kept
 * in memory, because any app node may serve any step.
 */
export const OAuthAuthorizationSchema = defineEntity({
  name: 'OAuthAuthorization',
  properties: {
    id: p.string().length(64).primary(),
    client: () => p.manyToOne(OAuthClientSchema).deleteRule('cascade').index(),
    redirectUri: p.text(),
    codeChallenge: p.string().length(128),
    state: p.text().nullable(),
    scopes: p.array().columnType('text[]'),
    resource: p.string().length(500),
    user: () => p.manyToOne(UserSchema).nullable().deleteRule('cascade'),
    team: () => p.manyToOne(TeamSchema).nullable().deleteRule('cascade'),
    codeHash: p.string().length(64).nullable().unique().hidden(),
    /** The refresh-token family the code started; revoked whole when the code is replayed. */
    family: p.string().length(64).nullable(),
    expiresAt: p.datetime().index(),
    approvedAt: p.datetime().nullable(),
    exchangedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type OAuthAuthorization = InferEntity<typeof OAuthAuthorizationSchema>;

/**
 * Refresh tokens, rotated on every use. All tokens descending from one authorization share a
 * `family`; presenting a used one is treated as theft and revokes the family with its access tokens.
 */
export const OAuthRefreshTokenSchema = defineEntity({
  name: 'OAuthRefreshToken',
  properties: {
    id: p.integer().primary(),
    family: p.string().length(64).index(),
    client: () => p.manyToOne(OAuthClientSchema).deleteRule('cascade'),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade'),
    team: () => p.manyToOne(TeamSchema).deleteRule('cascade'),
    secretHash: p.string().length(64).unique().hidden(),
    resource: p.string().length(500),
    scopes: p.array().columnType('text[]'),
    /** The access token issued together with this refresh token. */
    accessToken: () => p.manyToOne(AccessTokenSchema).nullable().deleteRule('set null'),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type OAuthRefreshToken = InferEntity<typeof OAuthRefreshTokenSchema>;
