import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { ProjectSchema, type Project } from '../entities/index.js';
import { badInput } from '../errors/catalogue.js';
import { parseId } from './validate.js';

export interface ProjectFilterInput {
  city?: string | null;
  status?: string | null;
  developer?: string | null;
  q?: string | null;
}

export const MAX_PER_PAGE = 50;

function likePattern(text: string): string {
  return `%${text.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listProjects(
  em: EntityManager,
  filter: ProjectFilterInput,
  page: number,
  perPage: number,
): Promise<{
  items: Project[];
  total: number;
  page: number;
  perPage: number;
  totalPages: number;
  meta: { page: number; perPage: number; total: number; totalPages: number };
}> {
  if (!Number.isInteger(page) || page < 1 || page > 100_000) throw badInput('page', 'must be an integer ≥ 1');
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
    throw badInput('perPage', `must be an integer from 1 to ${MAX_PER_PAGE}`);
  }
  const where: FilterQuery<Project>[] = [];
  if (filter.city?.trim())
    where.push({ city: { $ilike: filter.city.trim().replace(/[\\%_]/g, (c) => `\\${c}`) } });
  if (filter.status?.trim()) {
    const s = filter.status.trim().toLowerCase();
    where.push({ $or: [{ constructionStatus: s as never }, { salesStatus: s as never }] });
  }
  if (filter.developer?.trim())
    where.push({ developer: { name: { $ilike: likePattern(filter.developer) } } });
  if (filter.q?.trim()) where.push({ name: { $ilike: likePattern(filter.q) } });
  for (const [field, value] of Object.entries(filter)) {
    if (typeof value === 'string' && value.length > 200)
      throw badInput(`filter.${field}`, 'must be at most 200 characters');
  }
  const [items, total] = await em.findAndCount(ProjectSchema, where.length ? { $and: where } : {}, {
    orderBy: { name: 'asc', id: 'asc' },
    limit: perPage,
    offset: (page - 1) * perPage,
    // The catalogue tolerates replica lag: a read replica serves it when one is configured.
    connectionType: 'read',
  });
  const totalPages = Math.ceil(total / perPage);
  return { items, total, page, perPage, totalPages, meta: { page, perPage, total, totalPages } };
}

export async function getProject(em: EntityManager, id: number): Promise<Project | null> {
  return em.findOne(ProjectSchema, { id: parseId('id', id) }, { connectionType: 'read' });
}
