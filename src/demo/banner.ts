import type { AppConfig } from '../config.js';
import type { DemoCredentials } from './seed.js';

type BannerConfig = Pick<AppConfig, 'publicBaseUrl' | 'embedded' | 'dataDir'>;

/**
 * How to sign in as the demo users. Only the embedded demo has them: a real database never gets
 * demo users, and the banner says nothing about passwords there even if handed credentials.
 */
function signInLines(config: BannerConfig, demo: DemoCredentials): string[] {
  if (!config.embedded) return [];
  const base = config.publicBaseUrl;
  const width = Math.max(...demo.teams.map((c) => c.userEmail.length));
  const lines = ['', `Demo sign-in at ${base}/login (every demo user's password: ${demo.password}):`];
  for (const c of demo.teams) {
    const connector = c.agentTier === 'none' ? '' : `, ${c.agentTier} tier: can connect AI clients`;
    lines.push(`  ${c.userEmail.padEnd(width)}  owner of "${c.teamName}" (${c.plan}${connector})`);
  }
  const connectors = demo.teams.filter((c) => c.agentTier !== 'none').map((c) => c.userEmail);
  lines.push(
    `  Try: add ${base}/mcp as a remote MCP server in an MCP client; it opens this sign-in page: sign in as ${connectors.join(' or ')}.`,
    `       Or open ${base}/settings, sign in, and create API keys and MCP tokens, see connected AI clients and usage (docs/settings.md).`,
  );
  return lines;
}

/**
 * The operator token of this run: the configured one (PDS_ADMIN_TOKEN), or on the embedded database
 * one generated now so a newcomer can try the operator mutations. Only a generated token is
 * `generated`, and only that one is ever printed: a token an operator chose stays theirs.
 */
export function operatorTokenForRun(
  config: Pick<AppConfig, 'adminToken' | 'embedded'>,
  generate: () => string,
): { adminToken: string | null; generated: string | null } {
  if (config.adminToken) return { adminToken: config.adminToken, generated: null };
  const generated = config.embedded ? generate() : null;
  return { adminToken: generated, generated };
}

/**
 * What `npm start` prints once the server listens: the URLs, and on the embedded demo how to get
 * in. `generatedAdminToken` is printed; a configured operator token is never given here.
 */
export function startBanner(
  config: BannerConfig,
  generatedAdminToken: string | null,
  demo: DemoCredentials | null,
  ms: number,
): string {
  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Property Data Service is up in ${(ms / 1000).toFixed(1)} s (${config.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL'})`,
    `  GraphQL        ${base}/graphql`,
    `  Fusion REST    ${base}/api/v1   (OpenAPI: ${base}/api/v1/openapi.json)`,
    `  MCP tools      ${base}/mcp`,
    `  Health         ${base}/healthz  ${base}/readyz`,
  ];
  if (generatedAdminToken)
    lines.push('', `Operator token (generated for this run only): ${generatedAdminToken}`);
  if (demo) {
    lines.push('', 'Demo credentials (re-issued at every start; the previous ones are revoked):');
    for (const c of demo.teams) {
      lines.push(`  ${c.plan.padEnd(9)} team "${c.teamName}"`);
      if (c.apiKey) lines.push(`      API key (Fusion REST):  ${c.apiKey}`);
      lines.push(`      MCP access token:       ${c.mcpToken}`);
    }
    lines.push(...signInLines(config, demo));
    const pro = demo.teams.find((c) => c.plan === 'pro');
    if (pro) {
      lines.push(
        '',
        'Try it:',
        `  curl -s ${base}/graphql -H 'content-type: application/json' -H 'authorization: Bearer ${pro.mcpToken}' \\`,
        `    -d '{"query":"{ projects(filter: {city: \\"Toronto\\"}) { total items { id name city } } }"}'`,
      );
    }
  }
  return lines.join('\n');
}
