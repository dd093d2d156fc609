import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requireOperator, requireViewer } from '../auth/entitlements.js';
import type { RequestContext } from '../context/context.js';
import { CURSOR_DESCRIPTION, issueCursor, readCursor } from '../context/cursor.js';

/** A list-projects cursor: the last project shown (name, id) and the page number that follows. */
interface ProjectsPosition {
  n: string;
  i: number;
  p: number;
}
import { PAGE, pageDescription, pageOf } from '../graphql/limits.js';
import { describeRange, PROJECT_PAGE, PROJECTS_PER_PAGE } from '../limits.js';
import {
  catalogueLoaders,
  createBuilding,
  createFloorPlan,
  createProject,
  getProject,
  listProjects,
  type BuildingView,
  type FloorPlanView,
  type ProjectView,
} from './catalogue.service.js';
import {
  BuildingType,
  CreateBuildingInput,
  CreateFloorPlanInput,
  CreateProjectInput,
  FloorPlanType,
  ProjectFilter,
  ProjectPage,
  ProjectType,
} from './catalogue.types.js';

@Resolver(() => ProjectType)
export class ProjectResolver {
  @Query(() => ProjectPage, {
    description: `Projects, filtered and paginated (perPage ${describeRange(PROJECTS_PER_PAGE)})`,
  })
  async projects(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => ProjectFilter, { nullable: true }) filter: ProjectFilter | null,
    @Arg('page', () => Int, { defaultValue: PROJECT_PAGE.default }) page: number,
    @Arg('perPage', () => Int, { defaultValue: PROJECTS_PER_PAGE.default }) perPage: number,
    @Arg('cursor', () => String, {
      nullable: true,
      description: `${CURSOR_DESCRIPTION}; page is then ignored`,
    })
    cursor: string | null,
  ): Promise<ProjectPage> {
    const viewer = requireViewer(ctx.viewer);
    const f = filter ?? {};
    const args = [f.city ?? null, f.status ?? null, f.developer ?? null, f.q ?? null, perPage];
    const config = ctx.deps.config;
    const after = cursor ? readCursor<ProjectsPosition>(config, viewer, 'projects', args, cursor) : null;
    const listed = await listProjects(
      ctx.em,
      f,
      after ? Math.min(after.p, PROJECT_PAGE.max) : page,
      perPage,
      after ? { name: after.n, id: after.i } : undefined,
    );
    const last = listed.items.at(-1);
    const nextCursor =
      listed.more && last
        ? issueCursor(config, viewer, 'projects', args, { n: last.name, i: last.id, p: listed.page + 1 })
        : null;
    return { ...listed, meta: { ...listed.meta, nextCursor } };
  }

  @Query(() => ProjectType, { nullable: true })
  async project(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<ProjectView | null> {
    requireViewer(ctx.viewer);
    return getProject(ctx.em, id);
  }

  @FieldResolver(() => String, { nullable: true, description: 'null when the developer is not recorded' })
  async developerName(@Root() project: ProjectView, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (project.developerId === null) return null;
    return ctx.loaders.get(catalogueLoaders.developerName).load(project.developerId);
  }

  @FieldResolver(() => [BuildingType], { description: pageDescription('buildings', PAGE.buildings) })
  async buildings(
    @Root() project: ProjectView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<BuildingView[]> {
    const buildings = await ctx.loaders.get(catalogueLoaders.buildingsByProject).load(project.id);
    return pageOf(buildings, PAGE.buildings, first, offset);
  }

  @FieldResolver(() => [FloorPlanType], { description: pageDescription('floor plans', PAGE.floorPlans) })
  async floorPlans(
    @Root() project: ProjectView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<FloorPlanView[]> {
    const plans = await ctx.loaders.get(catalogueLoaders.floorPlansByProject).load(project.id);
    return pageOf(plans, PAGE.floorPlans, first, offset);
  }
}

@Resolver(() => BuildingType)
export class BuildingResolver {
  @FieldResolver(() => [FloorPlanType], { description: pageDescription('floor plans', PAGE.floorPlans) })
  async floorPlans(
    @Root() building: BuildingView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<FloorPlanView[]> {
    const plans = await ctx.loaders.get(catalogueLoaders.floorPlansByBuilding).load(building.id);
    return pageOf(plans, PAGE.floorPlans, first, offset);
  }

  @FieldResolver(() => ProjectType)
  async project(@Root() building: BuildingView, @Ctx() ctx: RequestContext): Promise<ProjectView | null> {
    return ctx.loaders.get(catalogueLoaders.project).load(building.projectId);
  }
}

/** Federation: other subgraphs reference a Project by id. */
export async function resolveProjectReference(
  reference: { id: number | string },
  ctx: RequestContext,
): Promise<ProjectView | null> {
  requireViewer(ctx.viewer);
  const id = Number(reference.id);
  return Number.isSafeInteger(id) && id > 0 ? ctx.loaders.get(catalogueLoaders.project).load(id) : null;
}

/** The operator's catalogue mutations (PDS_ADMIN_TOKEN only). */
@Resolver()
export class CatalogueAdminResolver {
  @Mutation(() => ProjectType)
  createProject(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateProjectInput) input: CreateProjectInput,
  ): Promise<ProjectView> {
    requireOperator(ctx.viewer);
    return createProject(ctx.em, input);
  }

  @Mutation(() => BuildingType)
  createBuilding(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateBuildingInput) input: CreateBuildingInput,
  ): Promise<BuildingView> {
    requireOperator(ctx.viewer);
    return createBuilding(ctx.em, input);
  }

  @Mutation(() => FloorPlanType)
  createFloorPlan(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateFloorPlanInput) input: CreateFloorPlanInput,
  ): Promise<FloorPlanView> {
    requireOperator(ctx.viewer);
    return createFloorPlan(ctx.em, input);
  }
}
