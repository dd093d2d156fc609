import { AccessTokenSchema, ApiKeySchema } from './credentials/credential.entity.js';
import { ChunkSchema, DocumentSchema, ExtractionSchema } from './documents/document.entity.js';
import {
  BuildingSchema,
  DeveloperSchema,
  FloorPlanSchema,
  ProjectSchema,
} from './catalogue/project.entity.js';
import {
  OAuthAuthorizationSchema,
  OAuthClientSchema,
  OAuthRefreshTokenSchema,
} from './oauth/oauth.entity.js';
import { UserSessionSchema } from './users/session.entity.js';
import { MembershipSchema, TeamSchema, UserSchema } from './accounts/team.entity.js';

/**
 * Every table's entity, for MikroORM's discovery (src/db/orm.ts passes this list; nothing is found
 * by scanning folders). Each entity sits beside the feature that owns it (`<feature>/*.entity.ts`);
 * a new one is added here (test/unit/db/entities.test.ts fails otherwise).
 */
export const ENTITIES = [
  TeamSchema,
  UserSchema,
  MembershipSchema,
  ApiKeySchema,
  AccessTokenSchema,
  DeveloperSchema,
  ProjectSchema,
  BuildingSchema,
  FloorPlanSchema,
  DocumentSchema,
  ExtractionSchema,
  ChunkSchema,
  UserSessionSchema,
  OAuthClientSchema,
  OAuthAuthorizationSchema,
  OAuthRefreshTokenSchema,
];
