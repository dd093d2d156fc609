import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../context/context.js';
import { requireSettingsAccess, settingsTeamScope } from '../../settings/settings.access.js';
import * as settings from '../../settings/settings.service.js';
import { AccessTokenType, ApiKeyType, CreatedApiKey } from '../types/team.type.js';

/**
 * The API settings of a team: list and roll keys, list tokens. Creating and revoking keys and
 * tokens are the operator contract's mutations (`createApiKey`, `revokeApiKey`, …), which accept
 * a team owner or admin too.
 */
@Resolver()
export class TeamSettingsResolver {
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
  ) {
    requireSettingsAccess(ctx.viewer, teamId);
    return settings.listApiKeys(ctx.em, teamId, includeInactive);
  }

  @Mutation(() => CreatedApiKey, {
    description:
      'Replaces a key without downtime: the new key (same name and scopes) works at once; the old one keeps working for expiresInSeconds (0 ends it now, at most 30 days). The new secret is returned only here.',
  })
  rollApiKey(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
    @Arg('expiresInSeconds', () => Int) expiresInSeconds: number,
  ) {
    const teamId = settingsTeamScope(ctx.viewer);
    return settings.rollApiKey(
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
  ) {
    requireSettingsAccess(ctx.viewer, teamId);
    return settings.listAccessTokens(ctx.em, teamId, includeInactive);
  }
}
