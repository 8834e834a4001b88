import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * The client packages (the license client and the API SDK), served as the npm tarballs `npm run build` packs into
 * dist/packages. They are not on a public registry (and the `@commerce` scope there is not ours), so a seller installs
 * them from this service by a versioned URL, or vendors the file into the app's repository:
 *
 *   npm install https://pay.example.com/downloads/commerce-license-client-0.1.0.tgz
 *
 * A file name carries its version, so an answer never changes: cached for a year. Bundled code runs from dist/ (the
 * directory is beside it); under tsx it is the repository's dist/.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const CANDIDATES = [join(HERE, 'packages'), join(HERE, '..', '..', 'dist', 'packages')];
const FILE = /^[a-z0-9][a-z0-9.-]*\.tgz$/;

export function packagesDir(): string | null {
  return CANDIDATES.find((d) => existsSync(d)) ?? null;
}

/** The tarballs on offer, e.g. ['commerce-license-client-0.1.0.tgz', 'commerce-sdk-0.1.0.tgz']. */
export function listPackages(): string[] {
  const dir = packagesDir();
  return dir ? readdirSync(dir).filter((f) => FILE.test(f)).sort() : [];
}

export default async function downloads(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } };
  app.get('/downloads', hide, async (_req, reply) => {
    const files = listPackages();
    return reply
      .header('cache-control', 'no-cache')
      .send({ packages: files.map((file) => ({ file, url: `/downloads/${file}` })) });
  });
  app.get<{ Params: { file: string } }>('/downloads/:file', hide, async (req, reply) => {
    const dir = packagesDir();
    const file = req.params.file;
    // Only names the build wrote: no path separators, no dot-files, nothing outside dist/packages.
    if (!dir || !FILE.test(file) || !listPackages().includes(file)) return reply.callNotFound();
    return reply
      .type('application/gzip')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', `attachment; filename="${file}"`)
      .send(createReadStream(join(dir, file)));
  });
}
