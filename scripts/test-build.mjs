// Compiles the TypeScript the test files run (test/, src/, bench/, scripts/, packages/*/{src,test}) to JavaScript once
// per run of scripts/run-tests.mjs, file by file into a mirror of the tree, so each test file's process runs plain
// `node` on JavaScript instead of loading tsx, whose loader thread and per-import hooks cost every file about a second
// and a half of CPU (measured on a file that builds one app and closes it: 5.1 s of CPU under tsx, 3.7 s compiled).
//
// Each .ts file becomes one .js file (not a bundle: a module is loaded once per process, as under tsx), with its
// relative imports pointing at the other compiled files and every package import left to Node. `import.meta.url`,
// `import.meta.dirname` and `import.meta.filename` are replaced by the original file's, so code that finds files
// beside itself (migrations, fixtures, guides, the repository root) finds the real ones. Source maps sit beside each
// file (the runner turns them on), so a failing test's stack names the .ts lines. Same transform as tsx (esbuild,
// the nearest tsconfig, names kept).
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOTS = ['src', 'test', 'bench', 'scripts', 'packages/license-client/src', 'packages/license-client/test', 'packages/sdk/src', 'packages/sdk/test'];
const TS = /\.(ts|mts|cts|tsx)$/;

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (TS.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The file a relative specifier names, as tsx finds it: exact, .js→.ts, or with an extension or /index added. */
function resolveFile(base) {
  const candidates = [base];
  if (/\.(m|c)?js$/.test(base)) candidates.push(base.replace(/\.(m|c)?js$/, (e) => e.replace('js', 'ts')));
  for (const ext of ['.ts', '.tsx', '.mts', '.js', '.mjs', '.json']) candidates.push(base + ext);
  for (const ext of ['.ts', '.tsx', '.js']) candidates.push(join(base, `index${ext}`));
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/**
 * Compiles into `out` (made fresh) and returns the path of a file's compiled copy (`compiled('test/x.test.ts')`).
 * `root` is the repository.
 */
export async function compileTests(root, out) {
  rmSync(out, { recursive: true, force: true });
  const entries = ROOTS.flatMap((d) => walk(join(root, d), []));
  const mirror = (file) => join(out, relative(root, file)).replace(TS, '.js');
  const own = {
    name: 'one-module-per-file',
    setup(b) {
      // An absolute specifier is left as written (the browser tests import from their page's origin in page code).
      b.onResolve({ filter: /^\// }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path, external: true }));
      b.onResolve({ filter: /^\.\.?(\/|$)/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const target = resolveFile(resolve(args.resolveDir, args.path));
        if (!target || target.endsWith('.json')) return undefined; // esbuild reports it, or inlines the JSON
        let to = relative(dirname(mirror(args.importer)), TS.test(target) ? mirror(target) : target).split(sep).join('/');
        if (!to.startsWith('.')) to = `./${to}`;
        return { path: to, external: true };
      });
      b.onLoad({ filter: TS }, (args) => {
        const text = readFileSync(args.path, 'utf8')
          .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
          .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(args.path)))
          .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
        return { contents: text, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
      });
    },
  };
  await build({
    absWorkingDir: root,
    entryPoints: entries.map((f) => ({ in: f, out: relative(root, f).replace(TS, '') })),
    outdir: out,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: `node${process.versions.node}`,
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [own],
  });
  return (file) => mirror(resolve(root, file));
}
