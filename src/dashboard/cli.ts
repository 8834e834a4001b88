import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { createMember, findMemberRef, resetPassword } from './members';
import { mailMemberPassword, type MailOutcome } from './mail';
import { resetSecondFactors } from './sign-in/second-factor';
import { recordAudit } from '../audit/service';

/** The operator CLI's dashboard commands (wired in src/cli.ts). */
export const MEMBER_HELP = `
Seller dashboard members:
  commerce member create --store ID --email EMAIL --name NAME --role owner|admin|support|developer [--password-stdin] [--print]
                                          add a person who signs in at /dashboard; prints a generated password once
                                          (or reads the password from stdin with --password-stdin)
  commerce member reset-password --store ID (--email EMAIL | --member mem_…) [--password-stdin] [--print]
                                          set a new password (printed once, or read from stdin); signs them out everywhere
  commerce member reset-2fa --store ID (--email EMAIL | --member mem_…)
                                          remove a member's authenticator app, passkeys and recovery codes and sign them
                                          out everywhere (an owner who lost every factor; run on the server, audited)
  With SMTP_URL set, a generated password is mailed to the member instead of printed (--print prints it as well);
  if the mail cannot be sent it is printed with a warning.`;

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

/**
 * Hands a generated password over: mailed when SMTP is configured (then printed only with --print), printed otherwise
 * or when the mail failed. The change is stored either way, so a failed mail is a warning and exit code 0.
 */
function handOver(email: string, password: string, mail: MailOutcome | null, print: boolean, note: string): void {
  if (mail?.sent) {
    process.stdout.write(`비밀번호를 ${email}로 보냈습니다 / password sent to ${email}\n`);
    if (print) process.stdout.write(`password  : ${password}\n`);
    return;
  }
  if (mail) process.stderr.write(`warning: 메일을 보내지 못했습니다 / the mail could not be sent (${mail.error}); hand the password over yourself\n`);
  process.stdout.write(`password  : ${password}\n${note}\n`);
}

export async function memberCommand(sub: string | undefined, args: string[], withDb: <T>(fn: (deps: Pick<AppDeps, 'db' | 'clock' | 'config'>) => Promise<T>) => Promise<T>): Promise<boolean> {
  const store = flag(args, 'store');
  const password = args.includes('--password-stdin') ? await readStdin() : undefined;
  const print = args.includes('--print');
  if (sub === 'create') {
    const email = flag(args, 'email');
    const name = flag(args, 'name');
    const role = flag(args, 'role');
    if (!store || !email || !name || !role) throw new Error('--store, --email, --name and --role are required');
    const res = await withDb(async (deps) => {
      const r = await createMember(deps, { storeId: store, email, name, role, password }, OPERATOR).catch(plain);
      // After the commit: the member exists whatever the mail does.
      return { ...r, mail: r.generated ? await mailMemberPassword(deps, store, r.member, r.password, 'created') : null };
    });
    process.stdout.write(`member id : ${res.member.id}\nemail     : ${res.member.email}\nrole      : ${res.member.role}\n`);
    if (res.generated) handOver(res.member.email, res.password, res.mail, print, '(shown once: hand it over safely; sign in at /dashboard/login)');
    return true;
  }
  if (sub === 'reset-password') {
    const ref = flag(args, 'member') ?? flag(args, 'email');
    if (!store || !ref) throw new Error('--store and --email (or --member) are required');
    const res = await withDb(async (deps) => {
      const r = await findMemberRef(deps, store, ref)
        .then((m) => resetPassword(deps, store, m.id, password, OPERATOR))
        .catch(plain);
      return { ...r, mail: r.generated ? await mailMemberPassword(deps, store, r.member, r.password, 'reset') : null };
    });
    process.stdout.write(`member id : ${res.member.id}\nemail     : ${res.member.email}\n`);
    if (res.generated) {
      handOver(res.member.email, res.password, res.mail, print, '(shown once; every session of this member was signed out)');
      if (res.mail?.sent) process.stdout.write('every session of this member was signed out\n');
    } else process.stdout.write('password set; every session of this member was signed out\n');
    return true;
  }
  if (sub === 'reset-2fa') {
    const ref = flag(args, 'member') ?? flag(args, 'email');
    if (!store || !ref) throw new Error('--store and --email (or --member) are required');
    const res = await withDb(async (deps) => {
      const m = await findMemberRef(deps, store, ref).catch(plain);
      const removed = await resetSecondFactors(deps, m.id);
      await recordAudit(deps.db, deps.clock, { storeId: store, mode: null, actor: OPERATOR, action: 'member.two_factor_reset', target: { type: 'member', id: m.id }, details: { email: m.email, ...removed } });
      return { member: m, removed };
    });
    process.stdout.write(`member id : ${res.member.id}\nemail     : ${res.member.email}\n`);
    process.stdout.write(`removed   : ${res.removed.totp ? 'authenticator app, ' : ''}${res.removed.passkeys} passkey(s), recovery codes\n`);
    process.stdout.write('every session of this member was signed out; they sign in with their password (and set a factor up again if the store requires one)\n');
    return true;
  }
  return false;
}
