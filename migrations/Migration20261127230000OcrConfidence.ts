import { Migration } from '@mikro-orm/migrations';

/**
 * OCR's confidence (0-100) in a chunk's words, for chunks read from a page image; null for chunks
 * from a PDF's text layer, which is every chunk stored before OCR existed.
 */
export class Migration20261127230000OcrConfidence extends Migration {
  override name = 'Migration20261127230000OcrConfidence';

  override up(): void {
    this.addSql(`alter table "chunk" add column if not exists "ocr_confidence" real null`);
  }

  override down(): void {
    this.addSql(`alter table "chunk" drop column if exists "ocr_confidence"`);
  }
}
