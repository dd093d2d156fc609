/** The sign-in pages' paths (the OAuth consent flow sends a visitor who is not signed in here). */
export const USER_PATHS = {
  login: '/login',
  logout: '/logout',
} as const;
