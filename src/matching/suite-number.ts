/**
 * Suite numbers as condo buildings write them: the last two digits name the stack (the column of
 * identical suites), the digits before them the floor. "1204" is floor 12, stack 04; "12-04" and
 * "Suite #1204" say the same; "1204A" is a split suite of stack 04. Penthouse floors are written
 * "PH05", "PH-05", "PH2-05"/"PH205" (second penthouse level) or "LPH"/"UPH" (lower/upper).
 */
export interface SuiteNumber {
  /** The floor the number encodes; null for penthouse suites (their storey is the building's top) and unparseable numbers. */
  floor: number | null;
  /** The stack as written ("04", "04A"); compare with `sameStack`, which ignores leading zeros. */
  stack: string | null;
  penthouse: boolean;
}

const PREFIX = /^(?:UNIT|SUITE|STE\.?|APT\.?|APARTMENT|NO\.?|#)\s*/;
const PENTHOUSE = /^[LU]?PH(?:(\d{1,2})[-\s.]+(\d{1,2})|(\d{1,2})(\d{2})|[-\s.]*(\d{1,2}))?([A-Z])?$/;
const FLOOR_DASH_STACK = /^(\d{1,3})[-\s.]+(\d{1,3})([A-Z])?$/;
const PACKED = /^(\d{1,3})(\d{2})-?([A-Z])?$/;

function clean(unitNumber: string): string {
  let s = unitNumber.trim().toUpperCase();
  for (let previous = ''; previous !== s;) {
    previous = s;
    s = s.replace(PREFIX, '');
  }
  return s.trim();
}

/** A suite number read once: what `suiteStack` and `canonicalUnit` give, and the stack's `stackKey`. */
export interface SuiteReading extends SuiteNumber {
  /** `stackKey(stack)`, or null without a stack. */
  key: string | null;
  /** `canonicalUnit` of the number. */
  canonical: string;
}

/**
 * Reads a suite number once for everything the matcher asks of it (a listing's suite is read on
 * every request: one pass instead of a pass each for its stack, its key and its unit schedule form).
 */
export function readSuite(unitNumber: string): SuiteReading {
  const packed = packedDigits(unitNumber);
  if (packed) return packed;
  const s = clean(unitNumber);
  const ph = PENTHOUSE.exec(s);
  if (ph) {
    const digits = ph[2] ?? ph[4] ?? ph[5];
    const stack = digits ? digits + (ph[6] ?? '') : null;
    const key = stack === null ? null : stackKey(stack);
    const level = ph[1] ?? ph[3] ?? '';
    const canonical = `${s.startsWith('PH') ? '' : s[0]}PH${level}-${key ?? ''}`;
    return { floor: null, stack, penthouse: true, key, canonical };
  }
  const parts = FLOOR_DASH_STACK.exec(s) ?? PACKED.exec(s);
  if (parts) {
    const floor = Number(parts[1]);
    const stack = parts[2] + (parts[3] ?? '');
    const key = stackKey(stack);
    return { floor, stack, penthouse: false, key, canonical: `${floor}-${key}` };
  }
  // Townhouses ("TH3"), two-digit and free-form numbers encode no floor or stack.
  return { floor: null, stack: null, penthouse: false, key: null, canonical: s.replace(/[\s\-.]/g, '') };
}

/**
 * "1204", "504", "10204": three to five digits and nothing else, the form most listings send, read
 * as PACKED reads it (floor, then a two-digit stack) without the patterns (a request reads up to 100).
 */
function packedDigits(unitNumber: string): SuiteReading | null {
  const n = unitNumber.length;
  if (n < 3 || n > 5) return null;
  for (let i = 0; i < n; i++) {
    const c = unitNumber.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  const floor = Number(unitNumber.slice(0, n - 2));
  const stack = unitNumber.slice(n - 2);
  const key = stackKey(stack);
  return { floor, stack, penthouse: false, key, canonical: `${floor}-${key}` };
}

export function suiteStack(unitNumber: string): SuiteNumber {
  const { floor, stack, penthouse } = readSuite(unitNumber);
  return { floor, stack, penthouse };
}

/** "04", "4" and "004" are one stack; a letter suffix ("04A") is kept. */
export function stackKey(stack: string): string {
  const m = /^0*(\d+)([A-Z]?)$/.exec(stack.trim().toUpperCase());
  return m ? `${m[1]}${m[2]}` : stack.trim().toUpperCase();
}

/** Same stack (`exact`), the same stack apart from a split-suite letter (`letter`), or different. */
export function compareStacks(a: string, b: string): 'exact' | 'letter' | 'different' {
  const ka = stackKey(a);
  const kb = stackKey(b);
  if (ka === kb) return 'exact';
  const digits = (k: string) => k.replace(/[A-Z]$/, '');
  return digits(ka) === digits(kb) && /^\d+$/.test(digits(ka)) ? 'letter' : 'different';
}

/** One spelling per suite, so a listing's "12-04" finds "1204" in a unit schedule. */
export function canonicalUnit(unitNumber: string): string {
  return readSuite(unitNumber).canonical;
}
