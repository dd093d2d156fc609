import type { App } from '../app.js';
import type { Plan, AgentTier } from '../enums.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccessTokenSchema, ApiKeySchema } from '../credentials/credential.entity.js';
import { DocumentSchema } from '../documents/document.entity.js';
import { ProjectSchema } from '../catalogue/project.entity.js';
import { TeamSchema, UserSchema } from '../accounts/team.entity.js';
import { generateCorpus, type CorpusManifest } from './corpus/index.js';
import { uploadAndQueue } from '../ingestion/ingest.service.js';
import { operatorViewer } from '../auth/viewer.js';
import * as accounts from '../accounts/accounts.service.js';
import * as catalogue from '../catalogue/catalogue.service.js';
import * as credentials from '../credentials/credentials.service.js';
import { buildDemoDataset } from './dataset.js';

export interface DemoTeamCredentials {
  plan: Plan;
  agentTier: AgentTier;
  teamName: string;
  userEmail: string;
  apiKey: string | null;
  mcpToken: string;
}

export interface DemoCredentials {
  teams: DemoTeamCredentials[];
  password: string;
  createdProjects: number;
}

export const DEMO_PASSWORD = 'demo-password-123';
const DEMO_CREDENTIAL_NAME = 'demo (re-issued at start)';

const DEMO_TEAMS: { plan: Plan; agentTier: AgentTier }[] = [
  { plan: 'sandbox', agentTier: 'none' },
  { plan: 'essential', agentTier: 'none' },
  { plan: 'pro', agentTier: 'agent' },
  { plan: 'elite', agentTier: 'enterprise' },
];

/** Loads the generated catalogue (projects, buildings, floor plans) once, on an empty database. */
async function seedCatalogue(app: App, seed: number): Promise<number> {
  const em = app.db.orm.em.fork();
  if ((await em.count(ProjectSchema, {})) > 0) return 0;
  const dataset = buildDemoDataset(seed);
  for (const p of dataset.projects) {
    const project = await catalogue.createProject(em, {
      name: p.name,
      slug: p.key,
      city: p.city,
      developerName: p.developerName,
      address: p.address,
      province: p.province,
      lat: p.lat,
      lng: p.lng,
      constructionStatus: p.constructionStatus,
      salesStatus: p.salesStatus,
      storeys: p.storeys,
      totalUnits: p.totalUnits,
      priceMin: p.priceMin,
      priceMax: p.priceMax,
      occupancyDate: p.occupancyDate,
    });
    for (const b of p.buildings) {
      const building = await catalogue.createBuilding(em, {
        projectId: project.id,
        name: b.name,
        addresses: b.addresses,
        aliases: b.aliases,
        mlsBuildingKey: b.mlsBuildingKey,
        condoCorpNumber: b.condoCorpNumber,
      });
      for (const f of b.floorPlans) {
        await catalogue.createFloorPlan(em, {
          projectId: project.id,
          buildingId: building.id,
          name: f.name,
          model: f.model,
          bedrooms: f.bedrooms,
          dens: f.dens,
          bathrooms: f.bathrooms,
          interiorSqft: f.interiorSqft,
          exteriorSqft: f.exteriorSqft,
          exposure: f.exposure,
          floorMin: f.floorMin,
          floorMax: f.floorMax,
          stacks: f.stacks,
          unitNumbers: f.unitNumbers,
          startPrice: f.startPrice,
        });
      }
    }
    em.clear();
  }
  return dataset.projects.length;
}

/**
 * The embedded demo: a catalogue on first start, one team per plan tier with a user, and fresh
 * credentials at every start. Secrets are stored only as hashes, so they cannot be shown again:
 * the previous demo credentials are revoked and new ones printed instead.
 */
export async function seedDemo(app: App, opts: { seed?: number } = {}): Promise<DemoCredentials> {
  const createdProjects = await seedCatalogue(app, opts.seed ?? 42);
  const em = app.db.orm.em.fork();
  const teams: DemoTeamCredentials[] = [];
  for (const spec of DEMO_TEAMS) {
    const teamName = `Demo ${spec.plan[0].toUpperCase()}${spec.plan.slice(1)}`;
    const userEmail = `${spec.plan}@demo.example.com`;
    const team =
      (await em.findOne(TeamSchema, { name: teamName })) ??
      (await accounts.createTeam(em, { name: teamName, plan: spec.plan, agentTier: spec.agentTier }));
    const user =
      (await em.findOne(UserSchema, { email: userEmail })) ??
      (await accounts.createUser(em, {
        email: userEmail,
        name: `Demo ${spec.plan} user`,
        password: DEMO_PASSWORD,
      }));
    await accounts.addMembership(em, { teamId: team.id, userId: user.id, role: 'owner' });
    const now = new Date();
    await em.nativeUpdate(
      ApiKeySchema,
      { team: team.id, name: DEMO_CREDENTIAL_NAME, revokedAt: null },
      { revokedAt: now },
    );
    await em.nativeUpdate(
      AccessTokenSchema,
      { team: team.id, name: DEMO_CREDENTIAL_NAME, revokedAt: null },
      { revokedAt: now },
    );
    const fusion = spec.plan === 'pro' || spec.plan === 'elite';
    const apiKey = fusion
      ? (
          await credentials.createApiKey(
            em,
            {
              teamId: team.id,
              name: DEMO_CREDENTIAL_NAME,
              scopes: ['building-links', 'floorplan-match', 'changes'],
            },
            user.id,
          )
        ).secret
      : null;
    const mcpToken = (
      await credentials.createAccessToken(
        em,
        { teamId: team.id, userId: user.id, name: DEMO_CREDENTIAL_NAME },
        operatorViewer(),
      )
    ).secret;
    teams.push({ plan: spec.plan, agentTier: spec.agentTier, teamName, userEmail, apiKey, mcpToken });
  }
  return { teams, password: DEMO_PASSWORD, createdProjects };
}

export interface DemoCorpusOutcome {
  /** Documents queued for extraction by this start (0 when the corpus was ingested before). */
  queued: number;
  directory: string;
}

/**
 * The order the demo's documents are queued in: the scans first, then the rest in manifest order
 * (a revision after the document it supersedes). A scan needs OCR, seconds a page, where a text
 * PDF takes a tenth of a second: started first, the long jobs do not leave one extractor working
 * alone at the end, and the scans' terms are searchable soonest.
 */
function extractionOrder<D extends { profile: string; supersedesFile?: string | null }>(docs: D[]): D[] {
  const first = (d: D) => d.profile === 'image-only' && !d.supersedesFile;
  return [...docs.filter(first), ...docs.filter((d) => !first(d))];
}

/**
 * On an embedded start with no documents, generates the demo PDF corpus (real PDFs with the
 * artifact profiles of the generator) under DATA_DIR and queues every document for extraction
 * (extractionOrder: scans first, revisions after what they supersede). Extraction continues in the
 * background while the server already answers.
 */
export async function seedDemoDocuments(
  app: App,
  opts: { projects: number; seed?: number; dataDir: string },
): Promise<DemoCorpusOutcome> {
  const seed = opts.seed ?? 42;
  const directory = join(opts.dataDir, 'demo-corpus');
  const em = app.db.orm.em.fork();
  if (opts.projects === 0 || (await em.count(DocumentSchema, {})) > 0) return { queued: 0, directory };
  const manifestPath = join(directory, 'manifest.json');
  const manifest: CorpusManifest = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as CorpusManifest)
    : await generateCorpus({
        projects: buildDemoDataset(seed, opts.projects).projects,
        seed,
        outDir: directory,
      });
  const projects = new Map(
    (await em.find(ProjectSchema, { slug: { $in: manifest.projects } })).map((p) => [p.slug, p.id]),
  );
  const byFile = new Map<string, number>();
  let queued = 0;
  for (const doc of extractionOrder(manifest.documents)) {
    const projectId = projects.get(doc.projectKey);
    if (!projectId) continue;
    const outcome = await uploadAndQueue(
      em,
      app.deps.ingestion.queue,
      {
        projectId,
        category: doc.category,
        name: doc.name,
        type: doc.type,
        content: readFileSync(join(directory, doc.file)),
        supersedesDocumentId: doc.supersedesFile ? (byFile.get(doc.supersedesFile) ?? null) : null,
      },
      app.deps.config.maxUploadBytes,
    );
    byFile.set(doc.file, outcome.document.id);
    if (outcome.extractionId) queued++;
  }
  return { queued, directory };
}
