import { Directive, Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import type { BuildingView, FloorPlanView, ProjectView } from './catalogue.service.js';
import { NEXT_CURSOR_DESCRIPTION } from '../context/cursor.js';

@ObjectType('FloorPlan', {
  description: 'A floor plan (suite model) of a project, with where it occurs in the building',
})
export class FloorPlanType implements Omit<FloorPlanView, 'projectId' | 'buildingId'> {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) model!: string | null;
  @Field(() => Int) bedrooms!: number;
  @Field(() => Int) dens!: number;
  @Field(() => Float) bathrooms!: number;
  @Field(() => Int, { nullable: true }) interiorSqft!: number | null;
  @Field(() => Int, { nullable: true }) exteriorSqft!: number | null;
  @Field(() => String, { nullable: true, description: 'Compass exposure: N, NE, E, SE, S, SW, W, NW' })
  exposure!: string | null;
  @Field(() => Int, { nullable: true }) floorMin!: number | null;
  @Field(() => Int, { nullable: true }) floorMax!: number | null;
  @Field(() => [String], { description: 'Suite stacks (the last two digits of a suite number)' })
  stacks!: string[];
  @Field(() => [String], { description: 'Explicit unit schedule, when published' }) unitNumbers!: string[];
  @Field(() => Int, { nullable: true }) startPrice!: number | null;
}

@ObjectType('Building', { description: 'A building of a project, with its real-world identities' })
export class BuildingType implements Omit<BuildingView, 'projectId'> {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => [String]) addresses!: string[];
  @Field(() => [String]) aliases!: string[];
  @Field(() => String, { nullable: true }) mlsBuildingKey!: string | null;
  @Field(() => String, { nullable: true }) condoCorpNumber!: string | null;
}

@Directive('@key(fields: "id")')
@ObjectType('Project', {
  description: 'A real-estate development project (pre-construction condos and towns)',
})
export class ProjectType implements Omit<ProjectView, 'developerId'> {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => String, { nullable: true, description: 'Street address; null when not published' })
  address!: string | null;
  @Field() city!: string;
  @Field(() => String, { nullable: true, description: 'null when not recorded' }) province!: string | null;
  @Field(() => Float, { nullable: true, description: 'null when the site is not geocoded' }) lat!:
    number | null;
  @Field(() => Float, { nullable: true, description: 'null when the site is not geocoded' }) lng!:
    number | null;
  @Field(() => String, {
    nullable: true,
    description: 'pre-construction, under-construction or completed; null when not known',
  })
  constructionStatus!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'coming-soon, selling or sold-out; null when not known',
  })
  salesStatus!: string | null;
  @Field(() => Int, { nullable: true, description: 'null when not published' }) storeys!: number | null;
  @Field(() => Int, { nullable: true, description: 'null when not published' }) totalUnits!: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Lowest price in dollars; null when no prices are published',
  })
  priceMin!: number | null;
  @Field(() => Int, {
    nullable: true,
    description: 'Highest price in dollars; null when no prices are published',
  })
  priceMax!: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'Expected occupancy, YYYY-MM; null when not announced',
  })
  occupancyDate!: string | null;
}

@ObjectType()
export class ProjectPageMeta {
  @Field(() => Int) page!: number;
  @Field(() => Int) perPage!: number;
  @Field(() => Int) total!: number;
  @Field(() => Int) totalPages!: number;
  @Field(() => String, { nullable: true, description: NEXT_CURSOR_DESCRIPTION })
  nextCursor?: string | null;
}

@ObjectType()
export class ProjectPage {
  @Field(() => ProjectPageMeta, {
    description: 'The paging fields again, grouped (the MCP list-projects tool returns them as meta)',
  })
  meta!: ProjectPageMeta;
  @Field(() => [ProjectType]) items!: unknown[];
  @Field(() => Int) total!: number;
  @Field(() => Int) page!: number;
  @Field(() => Int) perPage!: number;
  @Field(() => Int) totalPages!: number;
}

@InputType({ description: 'Filters combine with AND; text filters are case-insensitive' })
export class ProjectFilter {
  @Field(() => String, { nullable: true }) city?: string | null;
  @Field(() => String, { nullable: true, description: 'Construction or sales status' }) status?:
    string | null;
  @Field(() => String, { nullable: true, description: 'Developer name (substring)' }) developer?:
    string | null;
  @Field(() => String, { nullable: true, description: 'Project name (substring)' }) q?: string | null;
}

@InputType()
export class CreateProjectInput {
  @Field() name!: string;
  @Field(() => String, { nullable: true, description: 'Derived from the name when omitted' }) slug?:
    string | null;
  @Field() city!: string;
  @Field(() => String, { nullable: true }) developerName?: string | null;
  @Field(() => String, { nullable: true }) address?: string | null;
  @Field(() => String, { nullable: true }) province?: string | null;
  @Field(() => Float, { nullable: true }) lat?: number | null;
  @Field(() => Float, { nullable: true }) lng?: number | null;
  @Field(() => String, { nullable: true }) constructionStatus?: string | null;
  @Field(() => String, { nullable: true }) salesStatus?: string | null;
  @Field(() => Int, { nullable: true }) storeys?: number | null;
  @Field(() => Int, { nullable: true }) totalUnits?: number | null;
  @Field(() => Int, { nullable: true }) priceMin?: number | null;
  @Field(() => Int, { nullable: true }) priceMax?: number | null;
  @Field(() => String, { nullable: true }) occupancyDate?: string | null;
}

@InputType()
export class CreateBuildingInput {
  @Field(() => Int) projectId!: number;
  @Field() name!: string;
  @Field(() => [String], { nullable: true }) addresses?: string[] | null;
  @Field(() => [String], { nullable: true }) aliases?: string[] | null;
  @Field(() => String, { nullable: true }) mlsBuildingKey?: string | null;
  @Field(() => String, { nullable: true }) condoCorpNumber?: string | null;
}

@InputType()
export class CreateFloorPlanInput {
  @Field(() => Int) projectId!: number;
  @Field(() => Int, { nullable: true }) buildingId?: number | null;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) model?: string | null;
  @Field(() => Int) bedrooms!: number;
  @Field(() => Int, { nullable: true }) dens?: number | null;
  @Field(() => Float) bathrooms!: number;
  @Field(() => Int, { nullable: true }) interiorSqft?: number | null;
  @Field(() => Int, { nullable: true }) exteriorSqft?: number | null;
  @Field(() => String, { nullable: true }) exposure?: string | null;
  @Field(() => Int, { nullable: true }) floorMin?: number | null;
  @Field(() => Int, { nullable: true }) floorMax?: number | null;
  @Field(() => [String], { nullable: true }) stacks?: string[] | null;
  @Field(() => [String], { nullable: true }) unitNumbers?: string[] | null;
  @Field(() => Int, { nullable: true }) startPrice?: number | null;
}
