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
