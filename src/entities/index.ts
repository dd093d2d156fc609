import { AccessTokenSchema, ApiKeySchema } from './credential.entity.js';
import { ChunkSchema, DocumentSchema, ExtractionSchema } from './document.entity.js';
import { BuildingSchema, DeveloperSchema, FloorPlanSchema, ProjectSchema } from './project.entity.js';
import {
  OAuthAuthorizationSchema,
  OAuthClientSchema,
  OAuthRefreshTokenSchema,
  UserSessionSchema,
} from './oauth.entity.js';
import { MembershipSchema, TeamSchema, UserSchema } from './team.entity.js';

export * from './credential.entity.js';
export * from './document.entity.js';
export * from './oauth.entity.js';
export * from './project.entity.js';
export * from './team.entity.js';

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
