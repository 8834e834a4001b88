import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { createMember, findMemberRef, resetPassword } from './members';

/** The operator CLI's dashboard commands (wired in src/cli.ts). */
export const MEMBER_HELP = `
Seller dashboard members:
  commerce member create --store ID --email EMAIL --name NAME --role owner|admin|support|developer [--password-stdin]
                                          add a person who signs in at /dashboard; prints a generated password once
                                          (or reads the password from stdin with --password-stdin)
  commerce member reset-password --store ID (--email EMAIL | --member mem_…) [--password-stdin]
                                          set a new password (printed once, or read from stdin); signs them out everywhere`;

const OPERATOR = { kind: 'operator' as const, id: null, name: null };

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  // One trailing newline (from `echo` or a heredoc) is not part of the password.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** ApiErrors become one plain line for the terminal, with the fields that were wrong. */
function plain(e: unknown): never {
  if (e instanceof ApiError) {
    const fields = (e.details?.fields as { field: string; message: string }[] | undefined)?.map((f) => `${f.field}: ${f.message}`).join('; ');
    throw new Error(fields ? `${e.message} (${fields})` : e.internal ? `${e.message} (${e.internal})` : e.message);
  }
  throw e;
}

export async function memberCommand(sub: string | undefined, args: string[], withDb: <T>(fn: (deps: Pick<AppDeps, 'db' | 'clock'>) => Promise<T>) => Promise<T>): Promise<boolean> {
  const store = flag(args, 'store');
  const password = args.includes('--password-stdin') ? await readStdin() : undefined;
  if (sub === 'create') {
    const email = flag(args, 'email');
    const name = flag(args, 'name');
    const role = flag(args, 'role');
    if (!store || !email || !name || !role) throw new Error('--store, --email, --name and --role are required');
    const res = await withDb((deps) => createMember(deps, { storeId: store, email, name, role, password }, OPERATOR)).catch(plain);
    process.stdout.write(`member id : ${res.member.id}\nemail     : ${res.member.email}\nrole      : ${res.member.role}\n`);
    if (res.generated) process.stdout.write(`password  : ${res.password}\n(shown once: hand it over safely; sign in at /dashboard/login)\n`);
    return true;
  }
  if (sub === 'reset-password') {
    const ref = flag(args, 'member') ?? flag(args, 'email');
    if (!store || !ref) throw new Error('--store and --email (or --member) are required');
    const res = await withDb(async (deps) => {
      const m = await findMemberRef(deps, store, ref);
      return resetPassword(deps, store, m.id, password, OPERATOR);
    }).catch(plain);
    process.stdout.write(`member id : ${res.member.id}\nemail     : ${res.member.email}\n`);
    if (res.generated) process.stdout.write(`password  : ${res.password}\n(shown once; every session of this member was signed out)\n`);
    else process.stdout.write('password set; every session of this member was signed out\n');
    return true;
  }
  return false;
}
