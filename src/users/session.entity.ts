import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { UserSchema } from '../accounts/team.entity.js';

/**
 * A signed-in browser. The cookie holds a random secret; only its SHA-256 is stored, so a leaked
 * table cannot be replayed. Every request reads the row, so logout and expiry bite at once.
 */
export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  properties: {
    id: p.integer().primary(),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade').index(),
    secretHash: p.string().length(64).unique().hidden(),
    expiresAt: p.datetime(),
    lastSeenAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type UserSession = InferEntity<typeof UserSessionSchema>;
