import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { requireViewer } from '../../auth/entitlements.js';
import type { RequestContext } from '../../context/context.js';
import type { Building, Document, Project } from '../../entities/index.js';
import { listProjects, getProject } from '../../services/project.service.js';
import {
  BuildingType,
  FloorPlanType,
  ProjectFilter,
  ProjectPage,
  ProjectType,
} from '../types/project.type.js';
import { DocumentType } from '../types/document.type.js';
import { PAGE, pageOf } from '../limits.js';
import { describeRange, PROJECT_PAGE, PROJECTS_PER_PAGE } from '../../limits.js';

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
  ): Promise<ProjectPage> {
    requireViewer(ctx.viewer);
    return listProjects(ctx.em, filter ?? {}, page, perPage);
  }

  @Query(() => ProjectType, { nullable: true })
  async project(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<Project | null> {
    requireViewer(ctx.viewer);
    return getProject(ctx.em, id);
  }

  @FieldResolver(() => String, { nullable: true, description: 'null when the developer is not recorded' })
  async developerName(@Root() project: Project, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (!project.developer) return null;
    return (await ctx.loaders.developer.load(project.developer.id))?.name ?? null;
  }

  @FieldResolver(() => [BuildingType], { description: pageDescription('buildings', PAGE.buildings) })
  async buildings(
    @Root() project: Project,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<Building[]> {
    return pageOf(await ctx.loaders.buildingsByProject.load(project.id), PAGE.buildings, first, offset);
  }

  @FieldResolver(() => [FloorPlanType], { description: pageDescription('floor plans', PAGE.floorPlans) })
  async floorPlans(
    @Root() project: Project,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ) {
    return pageOf(await ctx.loaders.floorPlansByProject.load(project.id), PAGE.floorPlans, first, offset);
  }

  @FieldResolver(() => [DocumentType], {
    description: `Latest revisions of the project documents. ${pageDescription('documents', PAGE.documents)}`,
  })
  async documents(
    @Root() project: Project,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ): Promise<Document[]> {
    const latest = (await ctx.loaders.documentsByProject.load(project.id)).filter((d) => d.isLatest);
    return pageOf(latest, PAGE.documents, first, offset);
  }
}

/** Nested lists are paged so a query's cost (src/graphql/limits.ts) bounds its answer. */
function pageDescription(what: string, bound: { default: number; max: number }): string {
  return `A page of the ${what}, in id order: first (default ${bound.default}, at most ${bound.max}) from offset (default 0)`;
}

@Resolver(() => BuildingType)
export class BuildingResolver {
  @FieldResolver(() => [FloorPlanType], { description: pageDescription('floor plans', PAGE.floorPlans) })
  async floorPlans(
    @Root() building: Building,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('offset', () => Int, { nullable: true }) offset: number | null,
  ) {
    return pageOf(await ctx.loaders.floorPlansByBuilding.load(building.id), PAGE.floorPlans, first, offset);
  }

  @FieldResolver(() => ProjectType)
  async project(@Root() building: Building, @Ctx() ctx: RequestContext) {
    return ctx.loaders.project.load(building.project.id);
  }
}

/** Federation: other subgraphs reference a Project by id. */
export async function resolveProjectReference(
  reference: { id: number | string },
  ctx: RequestContext,
): Promise<Project | null> {
  requireViewer(ctx.viewer);
  const id = Number(reference.id);
  return Number.isSafeInteger(id) && id > 0 ? ctx.loaders.project.load(id) : null;
}
