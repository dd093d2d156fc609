/**
 * The extractor process's entry. It watches for the death of the process that started it before
 * loading the extractor (extract.child.ts: pdf.js, the OCR engine), which at the extractor's low
 * priority on a busy machine can take seconds: a parent killed meanwhile is noticed at once, not
 * after the load. The parent's pid is this script's argument (spawnExtractor in extract.ts).
 *
 * A parent killed outright may also leave the channel's end unnoticed while a long document is
 * being read; its pid changing (the orphan is re-parented) ends the extractor within a second.
 */
const PARENT_CHECK_MS = 500;

const parent = Number(process.argv[2]) || process.ppid;
const orphaned = () => !process.connected || process.ppid !== parent;
if (orphaned()) process.exit(0);
process.on('disconnect', () => process.exit(0));
setInterval(() => {
  if (orphaned()) process.exit(0);
}, PARENT_CHECK_MS).unref();

await import('./extract.child.js');
