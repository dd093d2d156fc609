import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import {
  requireSettings,
  requireSettingsAccess,
  settingsTeamScope,
  tokenScope,
} from './credentials.access.js';
import { disconnectClient, listConnectedClients, type ConnectedClientView } from '../oauth/grant.service.js';
import * as credentials from './credentials.service.js';
import { MAX_ACTIVE_API_KEYS_PER_TEAM, MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM } from '../limits.js';
import type { AccessTokenView, ApiKeyView } from './credentials.service.js';
import {
  AccessTokenType,
  ApiKeyType,
  ConnectedClientType,
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
    description: `Creates a Fusion API key; the secret is returned only here. A team holds at most ${MAX_ACTIVE_API_KEYS_PER_TEAM} active keys (a rolled key and its predecessor count once): one more is refused with CONFLICT`,
  })
  createApiKey(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<{ apiKey: ApiKeyView; secret: string }> {
    const viewer = requireSettingsAccess(ctx.viewer, input.teamId);
    return credentials.createApiKey(ctx.em, input, viewer.user?.id ?? null, ctx.deps.clock());
  }

  @Mutation(() => ApiKeyType)
  revokeApiKey(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<ApiKeyView> {
    return credentials.revokeApiKey(ctx.em, id, settingsTeamScope(ctx.viewer));
  }

  @Mutation(() => CreatedAccessToken, {
    description: `Creates an MCP access token; the secret is returned only here. A team holds at most ${MAX_ACTIVE_PERSONAL_TOKENS_PER_TEAM} active personal tokens: one more is refused with CONFLICT`,
  })
  createAccessToken(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateAccessTokenInput) input: CreateAccessTokenInput,
  ): Promise<{ accessToken: AccessTokenView; secret: string }> {
    const viewer = requireSettings(ctx.viewer, input.teamId, 'manage-own-tokens');
    return credentials.createAccessToken(ctx.em, input, viewer, ctx.deps.clock());
  }

  @Mutation(() => AccessTokenType)
  revokeAccessToken(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<AccessTokenView> {
    return credentials.revokeAccessToken(ctx.em, id, tokenScope(ctx.viewer));
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
    requireSettings(ctx.viewer, teamId, 'view');
    return credentials.listApiKeys(ctx.em, teamId, includeInactive);
  }

  @Mutation(() => CreatedApiKey, {
    description:
      'Replaces a key without downtime: the new key (same name and scopes) works at once; the old one keeps working for expiresInSeconds (0 ends it now, at most 30 days). Both share one rate-limit window: the new key is charged to the window of the first key of its rotation. The new secret is returned only here.',
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
    requireSettings(ctx.viewer, teamId, 'view');
    return credentials.listAccessTokens(ctx.em, teamId, includeInactive);
  }

  @Query(() => [ConnectedClientType], {
    description:
      'The AI clients connected to the team through the OAuth connector (one per grant), newest first',
  })
  connectedClients(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
  ): Promise<ConnectedClientView[]> {
    requireSettings(ctx.viewer, teamId, 'view');
    return listConnectedClients(ctx.em, teamId, ctx.deps.clock());
  }

  @Mutation(() => ConnectedClientType, {
    description:
      'Disconnects an AI client: its grant ends and its access and refresh tokens are refused from the next request. Members may disconnect only their own clients.',
  })
  disconnectClient(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => String) id: string,
  ): Promise<ConnectedClientView> {
    return disconnectClient(ctx.em, id, tokenScope(ctx.viewer), ctx.deps.clock());
  }
}
