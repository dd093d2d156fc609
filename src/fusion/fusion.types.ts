import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import type {
  BuildingIdentityView,
  BuildingLinkView,
  GeoPointView,
  LinkMatchView,
  ProjectSummaryView,
  FloorPlanListingInput,
  ListingMatchView,
  MatchedFloorPlanView,
  MatchSignalView,
  ScoredFloorPlanView,
} from './fusion.views.js';

/** An interior area: one number (square feet) or a [min, max] range. */
export const AreaOrRange = new GraphQLScalarType<number | [number, number], number | [number, number]>({
  name: 'AreaOrRange',
  description: 'Square feet: a number, or a [min, max] range',
  serialize: (v) => v as number | [number, number],
  parseValue: (v) => {
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      v.every((n) => typeof n === 'number' && Number.isFinite(n) && n > 0) &&
      v[0] <= v[1]
    ) {
      return [v[0], v[1]];
    }
    throw new GraphQLError('must be a positive number or a [min, max] range with min ≤ max');
  },
  parseLiteral: (ast) => {
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.LIST && ast.values.length === 2) {
      const [a, b] = ast.values.map((x) =>
        x.kind === Kind.INT || x.kind === Kind.FLOAT ? Number(x.value) : NaN,
      );
      if (a > 0 && b >= a) return [a, b];
    }
    throw new GraphQLError('must be a positive number or a [min, max] range');
  },
});

/**
 * A listing to match. Field names are the wire's (snake_case), so the REST body passes through
 * unchanged. The resolver gets listings as GraphQL coerced them, not as instances of this class
 * (src/graphql/schema.ts says why).
 */
@InputType('FloorPlanListing')
export class FloorPlanListing implements FloorPlanListingInput {
  @Field({ description: 'Your reference, echoed in the result' }) ref!: string;
  @Field(() => Int, { name: 'building_id', nullable: true }) building_id?: number | null;
  @Field(() => Int, { name: 'project_id', nullable: true }) project_id?: number | null;
  @Field(() => String, { nullable: true, description: 'Civic address of the building' }) address?:
    string | null;
  @Field(() => String, {
    name: 'unit_number',
    nullable: true,
    description: 'Suite number, e.g. 1204 or PH05',
  })
  unit_number?: string | null;
  @Field(() => Int, { nullable: true }) floor?: number | null;
  @Field(() => Int, { nullable: true }) bedrooms?: number | null;
  @Field(() => Int, { nullable: true }) dens?: number | null;
  @Field(() => Float, { nullable: true }) bathrooms?: number | null;
  @Field(() => AreaOrRange, { name: 'interior_sqft', nullable: true }) interior_sqft?:
    number | [number, number] | null;
  @Field(() => String, { nullable: true, description: 'N, NE, E, SE, S, SW, W or NW' }) exposure?:
    string | null;
}

@ObjectType('MatchSignal', { simpleResolvers: true })
export class MatchSignalType implements MatchSignalView {
  @Field() signal!: string;
  @Field({ description: 'match, partial, mismatch or missing' }) result!: string;
  @Field(() => Float) weight!: number;
  @Field(() => Float) score!: number;
  @Field() detail!: string;
}

@ObjectType('ScoredFloorPlan', { simpleResolvers: true })
export class ScoredFloorPlan implements ScoredFloorPlanView {
  @Field(() => Int) floorPlanId!: number;
  @Field() name!: string;
  @Field(() => Float, { description: '0 to 1' }) score!: number;
}

@ObjectType('MatchedFloorPlan', { simpleResolvers: true })
export class MatchedFloorPlan implements MatchedFloorPlanView {
  @Field(() => Int) floorPlanId!: number;
  @Field() name!: string;
  @Field(() => Float) score!: number;
  @Field(() => String, { nullable: true }) model!: string | null;
  @Field(() => Int) projectId!: number;
  @Field(() => Int, { nullable: true }) buildingId!: number | null;
  @Field(() => Int) bedrooms!: number;
  @Field(() => Int) dens!: number;
  @Field(() => Float) bathrooms!: number;
  @Field(() => Int, { nullable: true }) interiorSqft!: number | null;
  @Field(() => String, { nullable: true }) exposure!: string | null;
  @Field(() => Int, { nullable: true }) startPrice!: number | null;
}

@ObjectType('ListingMatch', { simpleResolvers: true })
export class ListingMatch implements ListingMatchView {
  @Field() ref!: string;
  @Field({ description: 'matched, ambiguous or no_match' }) status!: string;
  @Field(() => MatchedFloorPlan, { nullable: true }) bestMatch!: MatchedFloorPlan | null;
  @Field(() => [ScoredFloorPlan]) candidates!: ScoredFloorPlan[];
  @Field(() => [MatchSignalType], { description: 'How the top candidate scored' })
  signals!: MatchSignalType[];
  @Field(() => String, { nullable: true, description: 'A data problem with this listing' }) message!:
    string | null;
}

@ObjectType('BuildingIdentity', { simpleResolvers: true })
export class BuildingIdentity implements BuildingIdentityView {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field(() => [String]) addresses!: string[];
  @Field(() => [String]) aliases!: string[];
  @Field(() => [String]) mlsBuildingKeys!: string[];
  @Field(() => String, { nullable: true }) condoCorpNumber!: string | null;
}

@ObjectType('ProjectSummary', { simpleResolvers: true })
export class ProjectSummary implements ProjectSummaryView {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() slug!: string;
  @Field() city!: string;
  @Field(() => String, { nullable: true }) province!: string | null;
  @Field(() => String, { nullable: true }) developerName!: string | null;
  @Field(() => String, { nullable: true }) constructionStatus!: string | null;
  @Field(() => String, { nullable: true }) salesStatus!: string | null;
  @Field(() => String, { nullable: true }) occupancyDate!: string | null;
}

@ObjectType('GeoPoint', { simpleResolvers: true })
export class GeoPoint implements GeoPointView {
  @Field(() => Float) lat!: number;
  @Field(() => Float) lng!: number;
}

@ObjectType('LinkMatch', { simpleResolvers: true })
export class LinkMatch implements LinkMatchView {
  @Field({ description: 'How the building was identified, e.g. building_id' }) method!: string;
  @Field(() => Float, { description: '0 to 1' }) confidence!: number;
  @Field(() => [String]) basis!: string[];
}

@ObjectType('BuildingLink', {
  description: "A building's real-world identities, linked to its project",
  simpleResolvers: true,
})
export class BuildingLink implements BuildingLinkView {
  @Field(() => BuildingIdentity) building!: BuildingIdentity;
  @Field(() => ProjectSummary) project!: ProjectSummary;
  @Field(() => GeoPoint, { nullable: true }) geo!: GeoPoint | null;
  @Field(() => LinkMatch) match!: LinkMatch;
}

@ObjectType('FloorPlanMatchResult', { simpleResolvers: true })
export class FloorPlanMatchResult {
  @Field(() => [ListingMatch], { description: 'One result per listing, in request order' })
  results!: ListingMatch[];
}
