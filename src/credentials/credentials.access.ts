import { requireViewer } from '../auth/entitlements.js';
import type { Viewer } from '../auth/viewer.js';
import type { Role } from '../enums.js';
import { AppError } from '../errors/catalogue.js';

/**
 * Who may do what in a team's settings (the pages at /settings and the GraphQL settings fields
 * both check here, on the server, before any service call):
 *
 * | Action                                              | owner | admin | member |
 * |-----------------------------------------------------|-------|-------|--------|
 * | see the team, its keys, tokens, clients and usage   | yes   | yes   | yes    |
 * | create, roll and revoke API keys                    | yes   | yes   | no     |
 * | create personal MCP tokens (acting as themselves)   | yes   | yes   | yes    |
 * | revoke tokens and disconnect AI clients of anyone   | yes   | yes   | no     |
 * | revoke their own tokens, disconnect their own clients | yes | yes   | yes    |
 *
 * Owners and admins hold the same rights here; membership and billing stay with the operator.
 * A credential handed to a program (API key, MCP or connector token) cannot use the settings at
 * all, so a leaked token cannot be turned into new, longer-lived keys.
 */
export type SettingsAction = 'view' | 'manage-keys' | 'manage-own-tokens' | 'manage-team-tokens';

export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly SettingsAction[]>> = Object.freeze({
  owner: ['view', 'manage-keys', 'manage-own-tokens', 'manage-team-tokens'],
  admin: ['view', 'manage-keys', 'manage-own-tokens', 'manage-team-tokens'],
  member: ['view', 'manage-own-tokens'],
});

const REFUSALS: Record<SettingsAction, string> = {
  view: 'Only a member of this team may see its settings',
  'manage-keys': 'Only an owner or admin of this team may manage its keys and tokens',
  'manage-own-tokens': 'Only a member of this team may manage MCP access tokens',
  'manage-team-tokens': "Only an owner or admin of this team may revoke another member's tokens",
};

/** Whether a role may take an action (pages use it to offer only what the server will accept). */
export function roleMay(role: Role | null, action: SettingsAction): boolean {
  return role !== null && ROLE_PERMISSIONS[role].includes(action);
}

function requireInteractive(viewer: Viewer): void {
  if (viewer.credential.kind !== 'session') {
    throw new AppError(
      'FORBIDDEN',
      'API keys and tokens are managed by a signed-in team owner or admin, or by the operator',
    );
  }
}

function asTeamId(teamId: number | string): number {
  return typeof teamId === 'number' ? teamId : /^\d{1,10}$/.test(teamId) ? Number(teamId) : NaN;
}

/** A signed-in person acting for `teamId` whose role allows `action`, or the operator. */
export function requireSettings(viewer: Viewer | null, teamId: number, action: SettingsAction): Viewer {
  const v = requireViewer(viewer);
  if (v.isOperator) return v;
  requireInteractive(v);
  if (v.team?.id !== asTeamId(teamId) || !v.user || !roleMay(v.role, action)) {
    throw new AppError('FORBIDDEN', REFUSALS[action]);
  }
  return v;
}

/** Owner/admin of `teamId` (acting for that team) or the operator: key management. */
export function requireSettingsAccess(viewer: Viewer | null, teamId: number): Viewer {
  return requireSettings(viewer, teamId, 'manage-keys');
}

function actingTeam(v: Viewer): number {
  if (!v.team) {
    throw new AppError(
      'FORBIDDEN',
      'Your account belongs to several teams: name one with the X-Team-Id header',
    );
  }
  return v.team.id;
}

/**
 * For mutations that name only a key: the team whose keys the viewer may manage, or null for the
 * operator (any team). Services look the row up within that team, so another team's key reads as
 * not found.
 */
export function settingsTeamScope(viewer: Viewer | null): number | null {
  const v = requireViewer(viewer);
  if (v.isOperator) return null;
  requireInteractive(v);
  return requireSettings(v, actingTeam(v), 'manage-keys').team!.id;
}

/** Where a token or connected client may be looked up for revoking: a team, and a person within it. */
export interface TokenScope {
  /** null: any team (the operator). */
  teamId: number | null;
  /** null: anyone's in the team (owners, admins, the operator); else only this user's. */
  userId: number | null;
}

/**
 * For mutations that name only a token or a connected client: owners and admins reach every
 * member's, members only their own. Another team's or another member's row reads as not found.
 */
export function tokenScope(viewer: Viewer | null): TokenScope {
  const v = requireViewer(viewer);
  if (v.isOperator) return { teamId: null, userId: null };
  requireInteractive(v);
  const teamId = actingTeam(v);
  requireSettings(v, teamId, 'manage-own-tokens');
  return { teamId, userId: roleMay(v.role, 'manage-team-tokens') ? null : v.user!.id };
}
