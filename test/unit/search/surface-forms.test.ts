import { normalizeText } from '../../../src/search/text/normalize.js';
import { MAX_SURFACE_FORMS, surfaceForms } from '../../../src/search/query/surface-forms.js';
import { expandQuery } from '../../../src/search/query/synonyms.js';

describe('surfaceForms (meta.expanded_terms)', () => {
  it('lists the printed forms of 30 inch, the query first', () => {
    const forms = surfaceForms(expandQuery('30 inch').terms);
    expect(forms[0]).toBe('30 inch');
    expect(forms).toEqual(
      expect.arrayContaining(['30"', '30-inch', '30 in', '30 in.', '30\u2033', '30\u00E2\u20AC\u00B3']),
    );
  });

  it('shows hyphen, unit and thousands spellings', () => {
    expect(surfaceForms(['soft close'])).toEqual(['soft close', 'soft-close']);
    expect(surfaceForms(['1850 square feet'])).toEqual(
      expect.arrayContaining(['1850 square feet', '1850 sq ft', '1850 sq. ft.', '1,850 square feet']),
    );
    expect(surfaceForms(['9 feet ceilings'])).toEqual(
      expect.arrayContaining(['9 ft ceilings', "9' ceilings"]),
    );
  });

  it('lists only forms the search really covers, each once, every searched term included, capped', () => {
    for (const query of [
      '30 inch gas range',
      'quartz countertops',
      'walk-in closet',
      '1,850 sq. ft.',
      'Dishwasher and Gym',
      'countertops backsplash dishwasher range hood cooktop townhouse floor plan pot lights',
    ]) {
      const { terms } = expandQuery(query);
      const forms = surfaceForms(terms);
      expect(new Set(forms).size).toBe(forms.length);
      expect(forms.length).toBeLessThanOrEqual(Math.max(MAX_SURFACE_FORMS, terms.length));
      for (const term of terms) expect(forms).toContain(term);
      const searched = new Set(terms);
      for (const form of forms) expect(searched.has(normalizeText(form))).toBe(true);
      expect(surfaceForms(terms)).toEqual(forms);
    }
  });
});
