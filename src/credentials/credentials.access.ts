import { requireTeamAdmin, requireViewer } from '../auth/entitlements.js';
import type { Viewer } from '../auth/viewer.js';
import { AppError } from '../errors/catalogue.js';

/**
 * Keys and tokens are managed by a person: a signed-in owner or admin (session) of the team, or
 * the operator. A credential handed to a program (API key, MCP or connector token) cannot mint or
 * roll credentials, so a leaked token cannot be turned into new, longer-lived keys.
 */
function requireInteractive(viewer: Viewer): void {
  if (viewer.credential.kind !== 'session') {
    throw new AppError(
      'FORBIDDEN',
      'API keys and tokens are managed by a signed-in team owner or admin, or by the operator',
    );
  }
}

/** Owner/admin of `teamId` (acting for that team) or the operator. */
export function requireSettingsAccess(viewer: Viewer | null, teamId: number): Viewer {
  const v = requireViewer(viewer);
  if (v.isOperator) return v;
  requireInteractive(v);
  const id = typeof teamId === 'number' ? teamId : /^\d{1,10}$/.test(teamId) ? Number(teamId) : NaN;
  return requireTeamAdmin(v, id);
}

/**
 * For mutations that name only a key or token: the team whose credentials the viewer may manage,
 * or null for the operator (any team). Services look the row up within that team, so another
 * team's key reads as not found.
 */
export function settingsTeamScope(viewer: Viewer | null): number | null {
  const v = requireViewer(viewer);
  if (v.isOperator) return null;
  requireInteractive(v);
  if (!v.team) {
    throw new AppError(
      'FORBIDDEN',
      'Your account belongs to several teams: name one with the X-Team-Id header',
    );
  }
  requireTeamAdmin(v, v.team.id);
  return v.team.id;
}
