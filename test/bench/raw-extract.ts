import { extractPdfDirect } from '../../src/ingestion/extract.js';

/**
 * Raw unpdf in a process of its own (the worker bench's ceiling): receives the documents over IPC,
 * extracts them one after another after a warm-up, and answers with the pages and the seconds.
 */
if (process.send) {
  process.once('message', (docs: Uint8Array[]) => {
    void (async () => {
      await extractPdfDirect(docs[0]);
      const started = performance.now();
      let pages = 0;
      for (const bytes of docs) pages += (await extractPdfDirect(bytes)).pageCount;
      process.send!({ pages, seconds: (performance.now() - started) / 1000 }, () => process.exit(0));
    })();
  });
}
