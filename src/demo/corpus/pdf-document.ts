import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

const require = createRequire(import.meta.url);
/** The fontkit that pdfkit itself loads, so a parsed font can be handed to pdfkit and shared. */
const fontkit = createRequire(require.resolve('pdfkit'))('fontkit') as {
  create(data: Uint8Array): FontkitFont;
};

interface FontkitFont {
  characterSet: number[];
  glyphForCodePoint(codePoint: number): unknown;
}

/**
 * fontkit caches a glyph object with the code points of its first request, and the PDF's text
 * layer (ToUnicode) is written from them. A glyph first met as a part of a composite (the prime
 * inside the double prime `″`, when a document embeds `30″`) is cached with none, and every later
 * document that prints it would lose that character from its text (`9′` extracted as `9%`).
 * Asking for every code point the font maps first caches each glyph with its own.
 */
function withCodePoints(font: FontkitFont): object {
  for (const codePoint of font.characterSet) font.glyphForCodePoint(codePoint);
  return font;
}

interface Fonts {
  regular: object;
  bold: object;
}
let parsedFonts: Fonts | null = null;

/**
 * DejaVu covers every character the profiles write (primes, U+FFFD, ligatures, cp1252 look-alikes).
 * Parsed once: pdfkit accepts a parsed font and subsets it per document, and parsing the TTF for
 * every document would cost more than laying the document out.
 */
function fonts(): Fonts {
  parsedFonts ??= {
    regular: withCodePoints(
      fontkit.create(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'))),
    ),
    bold: withCodePoints(
      fontkit.create(readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'))),
    ),
  };
  return parsedFonts;
}

/**
 * A PDF document with the demo fonts registered. `shy` is a second copy of the body font used only
 * for soft hyphens: the font engine draws U+00AD as an invisible space glyph, and in a shared
 * subset that glyph's text mapping would turn every soft hyphen into a space.
 */
export function openDocument(
  info: { title: string; author: string; date: Date },
  userPassword?: string,
): { doc: PDFKit.PDFDocument; done: Promise<Buffer> } {
  const doc = new PDFDocument({
    size: 'LETTER',
    margin: 0,
    autoFirstPage: false,
    // RC4 (PDF 1.4) keeps encrypted output deterministic; AES in pdfkit draws random IVs.
    ...(userPassword
      ? { userPassword, ownerPassword: `${userPassword}-owner`, pdfVersion: '1.4' as const }
      : {}),
    info: {
      Title: info.title,
      Author: info.author,
      Creator: 'Property Data Service demo corpus',
      Producer: 'PDFKit',
      CreationDate: info.date,
    },
  });
  const { regular, bold } = fonts();
  // @types/pdfkit only knows paths and buffers; pdfkit 0.20 also takes a parsed fontkit font.
  doc.registerFont('body', regular as Buffer);
  doc.registerFont('bold', bold as Buffer);
  doc.registerFont('shy', regular as Buffer);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

export const PAGE = { width: 612, height: 792, marginX: 60, top: 80, bottom: 726 };
