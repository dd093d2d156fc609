import { crc32, deflateSync } from 'node:zlib';
import type { Rng } from '../prng.js';
import { openDocument, PAGE } from './pdf-document.js';

/**
 * Scanned documents: every page is a raster image of grey "text lines" on slightly noisy paper,
 * placed a little askew, with no text layer at all. Extraction must report them as `no_text`.
 */

const WIDTH = 425;
const HEIGHT = 550;

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit greyscale PNG, written by hand: no image library for one picture type. */
function encodePng(pixels: Uint8Array, width: number, height: number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    raw.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function scannedPage(rng: Rng, first: boolean): Buffer {
  const pixels = new Uint8Array(WIDTH * HEIGHT).fill(246);
  const ink = (x0: number, y0: number, w: number, h: number, tone: number): void => {
    for (let y = y0; y < Math.min(HEIGHT, y0 + h); y++) {
      for (let x = x0; x < Math.min(WIDTH, x0 + w); x++) pixels[y * WIDTH + x] = tone + rng.int(0, 25);
    }
  };
  for (let i = 0; i < 900; i++) pixels[rng.int(0, pixels.length - 1)] = rng.int(170, 230);
  let y = 40;
  if (first) {
    ink(40, y, rng.int(180, 300), 16, 30);
    y += 40;
  }
  while (y < HEIGHT - 50) {
    if (rng.chance(0.12)) {
      ink(40, y, rng.int(90, 170), 9, 40);
      y += 22;
      continue;
    }
    // A line of "words": dark runs with gaps.
    let x = 40 + (rng.chance(0.2) ? 12 : 0);
    const end = rng.chance(0.15) ? rng.int(120, 300) : WIDTH - 40;
    while (x < end) {
      const word = rng.int(8, 38);
      ink(x, y, Math.min(word, end - x), 5, 60);
      x += word + rng.int(4, 7);
    }
    y += rng.chance(0.1) ? 20 : 11;
  }
  return encodePng(pixels, WIDTH, HEIGHT);
}

export async function renderScannedPdf(
  info: { title: string; author: string; date: Date },
  pageCount: number,
  rng: Rng,
): Promise<Buffer> {
  const { doc, done } = openDocument(info);
  for (let page = 0; page < pageCount; page++) {
    doc.addPage({ size: 'LETTER', margin: 0 });
    doc.save();
    doc.rotate(rng.float(-0.8, 0.8), { origin: [PAGE.width / 2, PAGE.height / 2] });
    doc.image(scannedPage(rng, page === 0), 0, 0, { width: PAGE.width, height: PAGE.height });
    doc.restore();
  }
  doc.end();
  return done;
}
