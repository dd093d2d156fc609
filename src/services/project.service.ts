import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { ProjectSchema, type Project } from '../entities/index.js';
import { badInput } from '../errors/catalogue.js';
import { parseId } from './validate.js';
import { MAX_QUERY_LENGTH, PROJECT_PAGE, PROJECTS_PER_PAGE } from '../limits.js';

export interface ProjectFilterInput {
  city?: string | null;
  status?: string | null;
  developer?: string | null;
  q?: string | null;
}

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
  if (!Number.isInteger(page) || page < PROJECT_PAGE.min || page > PROJECT_PAGE.max)
    throw badInput('page', `must be an integer from ${PROJECT_PAGE.min} to ${PROJECT_PAGE.max}`);
  if (!Number.isInteger(perPage) || perPage < PROJECTS_PER_PAGE.min || perPage > PROJECTS_PER_PAGE.max) {
    throw badInput('perPage', `must be an integer from ${PROJECTS_PER_PAGE.min} to ${PROJECTS_PER_PAGE.max}`);
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
    if (typeof value === 'string' && value.length > MAX_QUERY_LENGTH)
      throw badInput(`filter.${field}`, `must be at most ${MAX_QUERY_LENGTH} characters`);
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
