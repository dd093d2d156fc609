import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import { requireSettingsAccess, settingsTeamScope } from './credentials.access.js';
import * as credentials from './credentials.service.js';
import type { AccessTokenView, ApiKeyView } from './credentials.service.js';
import {
  AccessTokenType,
  ApiKeyType,
  CreateAccessTokenInput,
  CreateApiKeyInput,
  CreatedAccessToken,
  CreatedApiKey,
} from './credentials.types.js';

/**
 * A team's API settings: its Fusion API keys and MCP access tokens, managed by a signed-in owner or
 * admin of the team or by the operator. The mutation names belong to the operator contract.
 */
@Resolver()
export class CredentialsResolver {
  @Mutation(() => CreatedApiKey, {
    description: 'Creates a Fusion API key; the secret is returned only here',
  })
  createApiKey(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<{ apiKey: ApiKeyView; secret: string }> {
    const viewer = requireSettingsAccess(ctx.viewer, input.teamId);
    return credentials.createApiKey(ctx.em, input, viewer.user?.id ?? null);
  }

  @Mutation(() => ApiKeyType)
  revokeApiKey(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<ApiKeyView> {
    return credentials.revokeApiKey(ctx.em, id, settingsTeamScope(ctx.viewer));
  }

  @Mutation(() => CreatedAccessToken, {
    description: 'Creates an MCP access token; the secret is returned only here',
  })
  createAccessToken(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateAccessTokenInput) input: CreateAccessTokenInput,
  ): Promise<{ accessToken: AccessTokenView; secret: string }> {
    const viewer = requireSettingsAccess(ctx.viewer, input.teamId);
    return credentials.createAccessToken(ctx.em, input, viewer);
  }

  @Mutation(() => AccessTokenType)
  revokeAccessToken(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<AccessTokenView> {
    return credentials.revokeAccessToken(ctx.em, id, settingsTeamScope(ctx.viewer));
  }

  @Query(() => [ApiKeyType], {
    description: "The team's Fusion API keys, newest first. Secrets are never shown again after creation.",
  })
  apiKeys(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
    @Arg('includeInactive', () => Boolean, {
      defaultValue: false,
      description: 'Also list revoked and expired keys',
    })
    includeInactive: boolean,
  ): Promise<ApiKeyView[]> {
    requireSettingsAccess(ctx.viewer, teamId);
    return credentials.listApiKeys(ctx.em, teamId, includeInactive);
  }

  @Mutation(() => CreatedApiKey, {
    description:
      'Replaces a key without downtime: the new key (same name and scopes) works at once; the old one keeps working for expiresInSeconds (0 ends it now, at most 30 days). The new secret is returned only here.',
  })
  rollApiKey(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
    @Arg('expiresInSeconds', () => Int) expiresInSeconds: number,
  ): Promise<{ apiKey: ApiKeyView; secret: string }> {
    const teamId = settingsTeamScope(ctx.viewer);
    return credentials.rollApiKey(
      ctx.em,
      id,
      expiresInSeconds,
      { teamId, createdBy: ctx.viewer?.user?.id ?? null },
      ctx.deps.clock(),
    );
  }

  @Query(() => [AccessTokenType], {
    description:
      "The team's MCP access tokens: personal ones made in the API settings and those issued to connected AI clients (kind oauth), newest first.",
  })
  accessTokens(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
    @Arg('includeInactive', () => Boolean, {
      defaultValue: false,
      description: 'Also list revoked and expired tokens',
    })
    includeInactive: boolean,
  ): Promise<AccessTokenView[]> {
    requireSettingsAccess(ctx.viewer, teamId);
    return credentials.listAccessTokens(ctx.em, teamId, includeInactive);
  }
}
