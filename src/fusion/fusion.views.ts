/**
 * What the Fusion service takes and returns: plain data, field for field the GraphQL types of
 * src/fusion/fusion.types.ts (which implement these, so the two cannot drift).
 */

/** A listing to match, with the wire's (snake_case) field names. */
export interface FloorPlanListingInput {
  ref: string;
  building_id?: number | null;
  project_id?: number | null;
  address?: string | null;
  unit_number?: string | null;
  floor?: number | null;
  bedrooms?: number | null;
  dens?: number | null;
  bathrooms?: number | null;
  interior_sqft?: number | [number, number] | null;
  exposure?: string | null;
}

export interface MatchSignalView {
  signal: string;
  result: string;
  weight: number;
  score: number;
  detail: string;
}

export interface ScoredFloorPlanView {
  floorPlanId: number;
  name: string;
  score: number;
}

export interface MatchedFloorPlanView extends ScoredFloorPlanView {
  model: string | null;
  projectId: number;
  buildingId: number | null;
  bedrooms: number;
  dens: number;
  bathrooms: number;
  interiorSqft: number | null;
  exposure: string | null;
  startPrice: number | null;
}

export interface ListingMatchView {
  ref: string;
  status: string;
  bestMatch: MatchedFloorPlanView | null;
  candidates: ScoredFloorPlanView[];
  signals: MatchSignalView[];
  message: string | null;
}

export interface BuildingIdentityView {
  id: number;
  name: string;
  addresses: string[];
  aliases: string[];
  mlsBuildingKeys: string[];
  condoCorpNumber: string | null;
}

export interface ProjectSummaryView {
  id: number;
  name: string;
  slug: string;
  city: string;
  province: string | null;
  developerName: string | null;
  constructionStatus: string | null;
  salesStatus: string | null;
  occupancyDate: string | null;
}

export interface GeoPointView {
  lat: number;
  lng: number;
}

export interface LinkMatchView {
  method: string;
  confidence: number;
  basis: string[];
}

export interface BuildingLinkView {
  building: BuildingIdentityView;
  project: ProjectSummaryView;
  geo: GeoPointView | null;
  match: LinkMatchView;
}
