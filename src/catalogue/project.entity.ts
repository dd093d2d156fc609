import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CONSTRUCTION_STATUSES, SALES_STATUSES } from '../enums.js';

export const DeveloperSchema = defineEntity({
  name: 'Developer',
  properties: {
    id: p.integer().primary(),
    name: p.string().length(200).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
/** @public the entity type, beside each schema */
export type Developer = InferEntity<typeof DeveloperSchema>;

export const ProjectSchema = defineEntity({
  name: 'Project',
  indexes: [{ properties: ['city'] }],
  properties: {
    id: p.integer().primary(),
    name: p.string().length(200),
    slug: p.string().length(200).unique(),
    developer: () => p.manyToOne(DeveloperSchema).nullable().deleteRule('set null'),
    address: p.string().length(300).nullable(),
    city: p.string().length(120),
    province: p.string().length(60).nullable(),
    lat: p.double().nullable(),
    lng: p.double().nullable(),
    constructionStatus: p.enum(CONSTRUCTION_STATUSES).nullable(),
    salesStatus: p.enum(SALES_STATUSES).nullable(),
    storeys: p.integer().nullable(),
    totalUnits: p.integer().nullable(),
    priceMin: p.integer().nullable(),
    priceMax: p.integer().nullable(),
    occupancyDate: p.string().length(10).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Project = InferEntity<typeof ProjectSchema>;

export const BuildingSchema = defineEntity({
  name: 'Building',
  properties: {
    id: p.integer().primary(),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade').index(),
    name: p.string().length(200),
    addresses: p.array().columnType('text[]'),
    aliases: p.array().columnType('text[]'),
    mlsBuildingKey: p.string().length(60).nullable().index(),
    condoCorpNumber: p.string().length(60).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Building = InferEntity<typeof BuildingSchema>;

export const FloorPlanSchema = defineEntity({
  name: 'FloorPlan',
  properties: {
    id: p.integer().primary(),
    project: () => p.manyToOne(ProjectSchema).deleteRule('cascade').index(),
    building: () => p.manyToOne(BuildingSchema).nullable().deleteRule('cascade').index(),
    name: p.string().length(200),
    model: p.string().length(100).nullable(),
    bedrooms: p.integer(),
    dens: p.integer().default(0),
    bathrooms: p.double(),
    interiorSqft: p.integer().nullable(),
    exteriorSqft: p.integer().nullable(),
    exposure: p.string().length(4).nullable(),
    floorMin: p.integer().nullable(),
    floorMax: p.integer().nullable(),
    stacks: p.array().columnType('text[]'),
    unitNumbers: p.array().columnType('text[]'),
    startPrice: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type FloorPlan = InferEntity<typeof FloorPlanSchema>;
