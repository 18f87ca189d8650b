// Transpiles src/ to plain JavaScript in dist/ (npm start runs it first, as prestart), the admin CLI's `bin` too.
//
// Running the server through tsx keeps a TypeScript loader and its worker thread in the process for its whole
// life: some 50 MiB of memory for nothing once the modules are loaded. esbuild strips the types file by file
// (same layout, same relative imports) in well under a second; type checking stays with `npm run typecheck`.
//
// The server's entry, dist/server.js, is then written again as one bundle of the server and the packages it imports:
// Node loading some 1,300 files one by one (read, resolve, compile) took 1.1 s of a 2 s start on a slow machine, the
// bundle loads in about a quarter of that (docs/benchmarks-history.md, "Start to ready"). The other entries (the admin CLI)
// stay file by file. What cannot be bundled stays a package import: argon2 (a native addon found beside its own
// files), PGlite (its WebAssembly and data files likewise) and pg-native (pg's optional native driver, not installed).
// So do the packages the server imports only when first needed (`await import`), so that a start does not parse them:
// @simplewebauthn/server (passkeys), nodemailer (SMTP) and qrcode (authenticator-app enrolment). The build fails if
// the bundle imports any of those at its top, which would load it from node_modules at every start.
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
const UNBUNDLED = ['argon2', '@electric-sql/pglite', 'pg-native'];
const LOADED_ON_FIRST_USE = ['@simplewebauthn/server', 'nodemailer', 'qrcode'];

const common = { platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' } as const;
await build({ entryPoints, outdir, outbase: src, ...common });
await build({
  ...common,
  entryPoints: [path.join(src, 'server.ts')],
  outfile: path.join(outdir, 'server.js'),
  allowOverwrite: true,
  bundle: true,
  minifyWhitespace: true,
  minifySyntax: true,
  external: [...UNBUNDLED, ...LOADED_ON_FIRST_USE],
  // The CommonJS packages inside an ES module bundle still call require() for Node's own modules.
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
});

const bundle = fs.readFileSync(path.join(outdir, 'server.js'), 'utf8');
for (const name of LOADED_ON_FIRST_USE) {
  // A static import, minified or not (`import{a}from"x";`, `import "x";`), at the start of a statement.
  if (new RegExp(`(^|[;}])\\s*import\\b[^;()]*["']${name.replace('/', '\\/')}["']`, 'm').test(bundle)) {
    throw new Error(`dist/server.js imports ${name} at its top: import it where it is first used (await import)`);
  }
}
