import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TOKEN_KINDS } from '../enums.js';
import { TeamSchema, UserSchema } from '../accounts/team.entity.js';

/** API keys for the Fusion REST APIs. Only the SHA-256 of the secret is stored. */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  properties: {
    id: p.integer().primary(),
    team: () => p.manyToOne(TeamSchema).deleteRule('cascade').index(),
    name: p.string().length(200),
    prefix: p.string().length(32),
    secretHash: p.string().length(64).unique().hidden(),
    scopes: p.array().columnType('text[]'),
    /** The first key of this key's rotation, whose rate-limit window it is charged to (null: its own). */
    windowKeyId: p.integer().nullable(),
    createdBy: () => p.manyToOne(UserSchema).nullable().deleteRule('set null'),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ApiKey = InferEntity<typeof ApiKeySchema>;

/** MCP access tokens: `personal` ones made in the API settings, `oauth` ones issued to connectors. */
export const AccessTokenSchema = defineEntity({
  name: 'AccessToken',
  properties: {
    id: p.integer().primary(),
    team: () => p.manyToOne(TeamSchema).deleteRule('cascade').index(),
    user: () => p.manyToOne(UserSchema).nullable().deleteRule('cascade'),
    kind: p.enum(TOKEN_KINDS),
    name: p.string().length(200),
    prefix: p.string().length(32),
    secretHash: p.string().length(64).unique().hidden(),
    scopes: p.array().columnType('text[]'),
    clientId: p.string().length(2048).nullable(),
    resource: p.string().length(500).nullable(),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AccessToken = InferEntity<typeof AccessTokenSchema>;
