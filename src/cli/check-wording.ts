import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `npm run lint` runs this: the product speaks of the product. It fails on development-diary
 * wording in any tracked text file (code, comments, tests, config, docs): numbered or ordinal
 * rounds of work, "issue N", "bullet N"; and on measured timings quoted in code comments
 * (fractions of a millisecond, microseconds, nanoseconds), which go stale with the machine: a
 * comment points at a bench line instead. The product's own sign-in sessions, a request's round
 * trip and the bench's rounds are words of the product and pass.
 *
 * It runs as TypeScript straight from the source (Node strips the types), so it imports only
 * Node's own modules.
 */

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly rule: string;
}

const ORDINALS =
  'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-\\w+|thirtieth|\\d+(?:st|nd|rd|th)';
const LATE_ORDINALS = ORDINALS.replace('first|second|third|', '');

const WORDING: readonly { rule: string; pattern: RegExp }[] = [
  { rule: 'an issue number', pattern: /\bissues?\s+(?:#\s?)?\d+/i },
  { rule: 'a bullet number', pattern: /\bbullets?\s+(?:#\s?)?\d+/i },
  {
    rule: 'a numbered round of work',
    pattern: /\b(?:sessions?|sprints?|milestones?|rounds?)\s+(?:#\s?)?\d+\b/i,
  },
  {
    rule: 'an ordinal round of work',
    pattern: new RegExp(`\\b(?:${ORDINALS})[- ](?:sessions?|sprints?|milestones?)\\b`, 'i'),
  },
  {
    rule: 'an ordinal round of work',
    pattern: new RegExp(`\\b(?:${LATE_ORDINALS})[- ]rounds?\\b(?![- ]trips?)`, 'i'),
  },
];

/** A measured timing: a fraction of a millisecond, or micro- and nanoseconds. */
const TIMING = /\b\d+\.\d+\s?(?:ms|µs|us|ns)\b|\d\s?(?:µs|ns)\b/;
const CODE_FILE = /\.(?:[cm]?[jt]s|jsonc)$|^\.ci\/run$/;
const COMMENT = /^\s*(?:\/\/|\/\*|\*|#)|\s\/\/\s|\/\*/;

/** What this file says in a development diary's words, line by line. */
export function findDiaryWording(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const code = CODE_FILE.test(file);
  text.split('\n').forEach((line, i) => {
    for (const { rule, pattern } of WORDING) {
      if (pattern.test(line)) {
        findings.push({ file, line: i + 1, text: line.trim(), rule });
        return;
      }
    }
    if (code && COMMENT.test(line) && TIMING.test(line.slice(line.search(COMMENT)))) {
      findings.push({ file, line: i + 1, text: line.trim(), rule: 'a machine timing in a comment' });
    }
  });
  return findings;
}

/** Files not read: binaries, lockfiles, and this checker and its test, which quote what they refuse. */
const SKIP = [
  /\.(?:png|jpe?g|gif|ico|pdf|woff2?|ttf|gz|zip|tgz)$/i,
  /(?:^|\/)package-lock\.json$/,
  /^src\/cli\/check-wording\.ts$/,
  /^test\/unit\/check-wording\.test\.ts$/,
];

export function checkRepository(root: string): Finding[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((f) => f && !SKIP.some((re) => re.test(f)));
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(resolve(root, file), 'utf8');
    } catch {
      return []; // listed by git but deleted in the work tree
    }
    return text.includes('\0') ? [] : findDiaryWording(file, text);
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const findings = checkRepository(process.cwd());
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.rule}: ${f.text}`);
  if (findings.length) {
    console.error(
      `\n${findings.length} line(s) speak of the development process instead of the product: say what the code does and why (a comment may point at a bench line, not quote its timing).`,
    );
    process.exit(1);
  }
}
