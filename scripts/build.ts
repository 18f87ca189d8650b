// Transpiles src/ to plain JavaScript in dist/ (npm start runs it first, as prestart), the admin CLI's `bin` too.
//
// Running the server through tsx keeps a TypeScript loader and its worker thread in the process for its whole
// life: some 50 MiB of memory for nothing once the modules are loaded. esbuild strips the types file by file
// (same layout, same relative imports) in well under a second; type checking stays with `npm run typecheck`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
// Another folder may be given (the admin CLI's tests build their own, so as not to race `npm start`'s).
// It is emptied first, so it must be a folder of its own inside the project.
const outdir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, 'dist');
if (!outdir.startsWith(`${root}${path.sep}`) || outdir.startsWith(`${src}${path.sep}`) || outdir === src) {
  throw new Error(`the output folder must be inside ${root}, outside src/ (got ${outdir})`);
}

const entryPoints = fs
  .readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => path.join(src, file));

fs.rmSync(outdir, { recursive: true, force: true });
await build({ entryPoints, outdir, outbase: src, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
