import { deflateSync } from 'node:zlib';

/**
 * Hand-built PDFs that attack the extractor. Each is a valid file structure (header, objects,
 * cross-reference table, trailer) so pdf.js gets past parsing and meets the hostile part.
 */
function assemble(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const bytes = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(bytes);
    length += bytes.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
  ].join('\n');
  parts.push(Buffer.from(`${xref}\n`, 'latin1'));
  return Buffer.concat(parts);
}

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** One real page, but the page tree claims `count` pages and lists that page `kids` times. */
export function hugePageCountPdf(count: number, kids = 1): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array(kids).fill('3 0 R').join(' ')}] /Count ${count} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('', Buffer.from('BT /F1 12 Tf 72 720 Td (Hello) Tj ET', 'latin1')),
    FONT,
  ]);
}

/** A page tree whose only kid is the tree itself. */
export function cyclicPageTreePdf(): Buffer {
  return assemble(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 >>']);
}

/**
 * A small file whose compressed content stream inflates to `operations` text-showing operators:
 * a few hundred kilobytes that keep pdf.js busy (and allocating) for a long time.
 */
export function contentBombPdf(operations: number): Buffer {
  const op = Buffer.from('BT /F1 9 Tf 10 10 Td (ab) Tj ET\n', 'latin1');
  const content = Buffer.alloc(op.length * operations);
  for (let i = 0; i < operations; i++) op.copy(content, i * op.length);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('/Filter /FlateDecode', deflateSync(content)),
    FONT,
  ]);
}
