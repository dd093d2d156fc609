import DataLoader from 'dataloader';
import { throwIfAborted } from '../http/deadline.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BuildingSchema,
  DeveloperSchema,
  DocumentSchema,
  ExtractionSchema,
  FloorPlanSchema,
  ProjectSchema,
  type Building,
  type Developer,
  type Document,
  type Extraction,
  type FloorPlan,
  type Project,
} from '../entities/index.js';

function groupBy<T>(rows: T[], key: (row: T) => number, ids: readonly number[]): T[][] {
  const map = new Map<number, T[]>(ids.map((id) => [id, []]));
  for (const row of rows) map.get(key(row))?.push(row);
  return ids.map((id) => map.get(id) ?? []);
}

function byId<T extends { id: number }>(rows: T[], ids: readonly number[]): (T | null)[] {
  const map = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => map.get(id) ?? null);
}

/** Per-request batch loaders: listing N projects with their children costs a constant number of queries. */
export function createLoaders(em: EntityManager, signal?: AbortSignal) {
  /** A request past its deadline, or whose client left, reads nothing more. */
  const guarded =
    <K, V>(batch: (ids: readonly K[]) => Promise<V[]>) =>
    (ids: readonly K[]): Promise<V[]> => {
      throwIfAborted(signal);
      return batch(ids);
    };
  return {
    project: new DataLoader<number, Project | null>(
      guarded(async (ids) => byId(await em.find(ProjectSchema, { id: { $in: [...ids] } }), ids)),
    ),
    developer: new DataLoader<number, Developer | null>(
      guarded(async (ids) => byId(await em.find(DeveloperSchema, { id: { $in: [...ids] } }), ids)),
    ),
    extraction: new DataLoader<number, Extraction | null>(
      guarded(async (ids) => byId(await em.find(ExtractionSchema, { id: { $in: [...ids] } }), ids)),
    ),
    buildingsByProject: new DataLoader<number, Building[]>(
      guarded(async (ids) =>
        groupBy(
          await em.find(BuildingSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } }),
          (b) => b.project.id,
          ids,
        ),
      ),
    ),
    floorPlansByBuilding: new DataLoader<number, FloorPlan[]>(
      guarded(async (ids) =>
        groupBy(
          await em.find(FloorPlanSchema, { building: { $in: [...ids] } }, { orderBy: { id: 'asc' } }),
          (f) => f.building!.id,
          ids,
        ),
      ),
    ),
    floorPlansByProject: new DataLoader<number, FloorPlan[]>(
      guarded(async (ids) =>
        groupBy(
          await em.find(FloorPlanSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } }),
          (f) => f.project.id,
          ids,
        ),
      ),
    ),
    /** Latest documents only; revisions are reached through Document.revisions. */
    documentsByProject: new DataLoader<number, Document[]>(
      guarded(async (ids) =>
        groupBy(
          await em.find(DocumentSchema, { project: { $in: [...ids] } }, { orderBy: { id: 'asc' } }),
          (d) => d.project.id,
          ids,
        ),
      ),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
