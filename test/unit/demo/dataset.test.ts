import { buildDemoDataset, slugify } from '../../../src/demo/dataset.js';
import { createRng, hashSeed } from '../../../src/demo/prng.js';

describe('seeded PRNG', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(8);
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('keeps int() within bounds and reaches both ends', () => {
    const rng = createRng(1);
    const rolls = Array.from({ length: 2000 }, () => rng.int(3, 6));
    expect(new Set(rolls)).toEqual(new Set([3, 4, 5, 6]));
  });

  it('samples distinct items and hashes parts stably', () => {
    const rng = createRng(3);
    const sample = rng.sample(['a', 'b', 'c', 'd', 'e'], 3);
    expect(new Set(sample).size).toBe(3);
    expect(hashSeed(42, 'x')).toBe(hashSeed(42, 'x'));
    expect(hashSeed(42, 'x')).not.toBe(hashSeed(42, 'y'));
  });
});

describe('demo dataset', () => {
  const dataset = buildDemoDataset();

  it('is identical for the same seed and different for another', () => {
    expect(buildDemoDataset(42)).toEqual(dataset);
    expect(JSON.stringify(buildDemoDataset(43))).not.toEqual(JSON.stringify(dataset));
  });

  it('gives the same first projects whatever the project count', () => {
    expect(buildDemoDataset(42, 12).projects).toEqual(dataset.projects.slice(0, 12));
  });

  it('has at least 40 projects in at least 6 cities from about a dozen developers', () => {
    expect(dataset.projects.length).toBe(44);
    expect(new Set(dataset.projects.map((p) => p.city)).size).toBeGreaterThanOrEqual(6);
    expect(dataset.developers.length).toBeGreaterThanOrEqual(10);
    expect(dataset.developers.length).toBeLessThanOrEqual(12);
    expect(new Set(dataset.projects.map((p) => p.developerName))).toEqual(new Set(dataset.developers));
    // Even a small demo spans several markets.
    expect(new Set(buildDemoDataset(42, 6).projects.map((p) => p.city)).size).toBe(6);
  });

  it('has unique slugs, names and MLS building keys', () => {
    const projects = dataset.projects;
    expect(new Set(projects.map((p) => p.key)).size).toBe(projects.length);
    expect(new Set(projects.map((p) => p.name)).size).toBe(projects.length);
    for (const p of projects) expect(p.key).toBe(slugify(p.key));
    const keys = projects.flatMap((p) => p.buildings.map((b) => b.mlsBuildingKey));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has 1-3 buildings with addresses and aliases, and 3-8 floor plans per building', () => {
    for (const p of dataset.projects) {
      // A mixed project adds its townhome block to up to two towers.
      expect(p.buildings.length).toBeGreaterThanOrEqual(1);
      expect(p.buildings.length).toBeLessThanOrEqual(3);
      expect(p.address).toMatch(/^\d+ \S/);
      for (const b of p.buildings) {
        expect(b.addresses.length).toBeGreaterThanOrEqual(1);
        expect(b.aliases.length).toBeGreaterThanOrEqual(1);
        expect(b.floorPlans.length).toBeGreaterThanOrEqual(3);
        expect(b.floorPlans.length).toBeLessThanOrEqual(8);
      }
    }
  });

  it('has consistent, realistic floor plans and prices', () => {
    for (const p of dataset.projects) {
      const plans = p.buildings.flatMap((b) => b.floorPlans);
      expect(p.priceMin).toBe(Math.min(...plans.map((f) => f.startPrice)));
      expect(p.priceMax).toBeGreaterThanOrEqual(Math.max(...plans.map((f) => f.startPrice)));
      expect(p.occupancyDate).toMatch(/^20\d\d-(0[1-9]|1[0-2])$/);
      for (const f of plans) {
        expect(f.floorMin).toBeGreaterThanOrEqual(1);
        expect(f.floorMax).toBeGreaterThanOrEqual(f.floorMin);
        expect(f.floorMax).toBeLessThanOrEqual(p.storeys);
        expect(['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW']).toContain(f.exposure);
        expect(f.interiorSqft).toBeGreaterThan(300);
        expect(f.startPrice % 1000).toBe(900);
        for (const stack of f.stacks) expect(stack).toMatch(/^\d\d$/);
        for (const unit of f.unitNumbers) {
          if (f.stacks.length > 0) expect(f.stacks).toContain(unit.slice(-2));
        }
      }
    }
  });

  it('mixes condos and townhomes, statuses and registered condominium corporations', () => {
    const plans = dataset.projects.flatMap((p) => p.buildings.flatMap((b) => b.floorPlans));
    expect(plans.some((f) => f.model.startsWith('TH'))).toBe(true);
    expect(plans.some((f) => f.bedrooms === 0)).toBe(true);
    expect(plans.some((f) => f.unitNumbers.length > 0 && f.stacks.length > 0)).toBe(true);
    expect(new Set(dataset.projects.map((p) => p.constructionStatus)).size).toBe(3);
    expect(new Set(dataset.projects.map((p) => p.salesStatus)).size).toBe(3);
    const corps = dataset.projects.flatMap((p) => p.buildings.map((b) => b.condoCorpNumber));
    expect(corps.some((c) => c === null)).toBe(true);
    expect(corps.some((c) => c !== null)).toBe(true);
    for (const p of dataset.projects) {
      if (p.constructionStatus === 'pre-construction') {
        expect(p.buildings.every((b) => b.condoCorpNumber === null)).toBe(true);
      }
    }
  });
});
