import { Field, Int, InputType, ObjectType } from 'type-graphql';
import type { AccessTokenView, ApiKeyView } from './credentials.service.js';
import type { ConnectedClientView } from '../oauth/grant.service.js';
import type { TokenKind } from '../enums.js';
import { TokenKindEnum } from '../graphql/enums.js';

@ObjectType('ApiKey', {
  description: 'A Fusion API key. The secret is shown once, at creation; only its hash is stored.',
})
export class ApiKeyType implements ApiKeyView {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field({ description: 'First characters of the secret, to recognise it' }) prefix!: string;
  @Field(() => [String]) scopes!: string[];
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) expiresAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('AccessToken', {
  description: 'An MCP access token. The secret is shown once, at creation; only its hash is stored.',
})
export class AccessTokenType implements AccessTokenView {
  @Field(() => Int) id!: number;
  @Field(() => TokenKindEnum) kind!: TokenKind;
  @Field() name!: string;
  @Field() prefix!: string;
  @Field(() => [String]) scopes!: string[];
  @Field(() => String, { nullable: true }) clientId!: string | null;
  @Field(() => Int, { nullable: true, description: 'The user the token acts as' }) userId!: number | null;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) expiresAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType()
export class CreatedApiKey {
  @Field(() => ApiKeyType) apiKey!: object;
  @Field({ description: 'The secret: shown only in this response' }) secret!: string;
}

@ObjectType()
export class CreatedAccessToken {
  @Field(() => AccessTokenType) accessToken!: object;
  @Field({ description: 'The secret: shown only in this response' }) secret!: string;
}

@InputType()
export class CreateApiKeyInput {
  @Field(() => Int) teamId!: number;
  @Field() name!: string;
  @Field(() => [String], {
    description: 'Any subset of the scopes the team is entitled to: building-links, floorplan-match',
  })
  scopes!: string[];
  @Field(() => Date, { nullable: true }) expiresAt?: Date | null;
}

@InputType()
export class CreateAccessTokenInput {
  @Field(() => Int) teamId!: number;
  @Field(() => Int, { nullable: true }) userId?: number | null;
  @Field() name!: string;
  @Field(() => Date, { nullable: true }) expiresAt?: Date | null;
}

@ObjectType('ConnectedClient', {
  description: 'An AI client connected through the OAuth connector: one grant for one person',
})
export class ConnectedClientType implements ConnectedClientView {
  @Field({ description: 'The grant id, passed to disconnectClient' }) id!: string;
  @Field() clientId!: string;
  @Field() clientName!: string;
  @Field({ description: 'The host the client was sent back to after consent' }) redirectHost!: string;
  @Field(() => Int) userId!: number;
  @Field() userEmail!: string;
  @Field(() => Date) connectedAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
}
