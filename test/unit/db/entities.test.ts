import { EntitySchema } from '@mikro-orm/core';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENTITIES } from '../../../src/entities.js';

const SRC = join(import.meta.dirname, '../../../src');

describe('entity discovery', () => {
  it('lists every entity defined beside a feature, once', async () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.entity.ts'))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    const defined: string[] = [];
    for (const file of files) {
      const mod = (await import(join(SRC, file))) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        if (value instanceof EntitySchema)
          defined.push(`${relative(SRC, join(SRC, file))}: ${value.meta.className}`);
      }
    }
    const listed = new Set(ENTITIES.map((e) => e.meta.className));
    expect(defined.filter((d) => !listed.has(d.split(': ')[1]))).toEqual([]);
    expect(listed.size).toBe(ENTITIES.length);
    expect(defined).toHaveLength(ENTITIES.length);
  });
});
