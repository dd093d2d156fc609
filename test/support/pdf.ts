import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

/** DejaVu covers the Unicode the tests write (primes, U+FFFD, ligatures); pdfkit's built-in Helvetica does not. */
const FONT = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');

/** A real PDF made with pdfkit: one string per page (empty → a page with a drawing and no text). */
export async function makePdf(pages: string[], opts: { userPassword?: string } = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    userPassword: opts.userPassword,
    pdfVersion: opts.userPassword ? '1.7' : undefined,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (const text of pages) {
    doc.addPage();
    if (text) doc.font(FONT).fontSize(11).text(text, { width: 460 });
    else doc.rect(72, 72, 300, 400).fill('#888888');
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

export const UPLOAD = `mutation($input: UploadDocumentInput!) {
  uploadDocument(input: $input) { duplicate extractionId document { id name category isLatest supersedesId } }
}`;
