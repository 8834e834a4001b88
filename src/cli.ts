import { loadConfig } from './config';
import { readMasterKey } from './master-key';
import { registerMailHook } from './mail/module';
import { createDemo, demoBanner } from './demo';
import { startCommand, workerCommand } from './serve';
import { setupBanner, setupStore } from './setup';
import { resolvePublicAddress } from './platform/public-address';
import { openDatabase } from './db';
import { verifyMasterKey } from './db/master-key-check';
import { backupEmbedded, backupPostgres, POSTGRES_BACKUP_HELP, readBackup, restoreEmbedded, writeBackup } from './db/backup';
import { join } from 'node:path';
import { createStore, revokeOwnerToken, rotateOwnerToken, setPublicContactVerified } from './stores/service';
import { createApiKey, ALL_SCOPES } from './stores/api-keys';
import { systemClock } from './platform/clock';
import { SCOPES, type Scope } from './platform/http/route';
import { canonicalAllowlistEntry } from './platform/http/auth';
import { MEMBER_HELP, memberCommand } from './dashboard/cli';
import { reconcileCommand } from './reconciliation/cli';

/** One entry per command: its usage line(s) and what it does. `commerce <command> --help` prints its entry. */
const COMMANDS: Array<{ name: string; usage: string; about: string }> = [
  { name: 'start', usage: 'commerce start [--demo] [--no-demo] [--no-worker]', about: 'migrate, then serve the API (and run background workers). On an empty embedded database it creates a demo store; --demo asks for it on PostgreSQL too' },
  { name: 'worker', usage: 'commerce worker', about: 'run only the background workers (webhook delivery, jobs)' },
  { name: 'migrate', usage: 'commerce migrate', about: 'apply pending database migrations' },
  {
    name: 'setup',
    usage: 'commerce setup --name NAME --email OWNER_EMAIL [--owner-name NAME] [--return-domains host,...] [--print]',
    about:
      "first run: a store with a test API key, its owner as a dashboard member (password mailed with SMTP_URL, else printed once; --print prints it as well) and test mode's return-URL allow-list (localhost, 127.0.0.1, the public host, --return-domains); prints them",
  },
  { name: 'store create', usage: 'commerce store create --name NAME [--verified]', about: 'create a bare store (no key, no member, no return URLs); prints its owner token and the next steps. `commerce setup` does it all at once' },
  { name: 'store token', usage: 'commerce store token rotate|revoke --store ID', about: 'rotate: issue a new owner token (printed once), the old one stops working at once; revoke: revoke it now' },
  { name: 'store verify', usage: 'commerce store verify --store ID [--unverify]', about: "mark the store's public contact verified (or take the mark back)" },
  { name: 'key create', usage: 'commerce key create --store ID --mode test|live [--name NAME] [--scopes a,b] [--ip CIDR,...] [--products id,...]', about: 'create an API key (all scopes by default); prints it once' },
  {
    name: 'reconcile',
    usage: 'commerce reconcile --store ID --date YYYY-MM-DD [--mode live|test]',
    about: "compare one KST day of Toss Payments' transactions with the store's orders and refunds (live by default) and print the differences; runs now, in this process",
  },
  { name: 'demo', usage: 'commerce demo', about: 'create a demo store (test mode) and print its keys' },
  {
    name: 'backup',
    usage: 'commerce backup FILE',
    about: 'embedded database: write a consistent copy to FILE, from the running server or with it stopped. PostgreSQL: pg_dump --format=custom (or how to, without pg_dump). The master key is not in it: keep it apart',
  },
  {
    name: 'restore',
    usage: 'commerce restore FILE',
    about: 'embedded database: replace DATA_DIR\'s database with a backup (the server must be stopped; the old one is moved aside). Needs the same master key. PostgreSQL: prints the pg_restore path',
  },
];

const FOOTER = `Configuration comes from the environment (see README): DATABASE_URL, DATA_DIR, PORT, HOST, REDIS_URL, ...
\`commerce <command> --help\` prints one command's usage.`;

export const HELP = `commerce — Commerce API operator CLI

Usage:
${COMMANDS.map((c) => `  ${c.usage}\n      ${c.about}`).join('\n')}

${FOOTER}
${MEMBER_HELP}`;

/** The usage of the command named by argv (`store token` before `store`), or the whole list. */
function helpFor(argv: string[]): string {
  const words = argv.filter((a) => !a.startsWith('-'));
  const match = COMMANDS.filter((c) => c.name === words.slice(0, c.name.split(' ').length).join(' '));
  if (!match.length) {
    const group = COMMANDS.filter((c) => c.name.split(' ')[0] === words[0]);
    if (!group.length) return HELP;
    return `Usage:\n${group.map((c) => `  ${c.usage}\n      ${c.about}`).join('\n')}`;
  }
  return `Usage:\n${match.map((c) => `  ${c.usage}\n      ${c.about}`).join('\n')}\n\n${FOOTER}`;
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function withDb<T>(fn: (deps: { db: any; clock: typeof systemClock; config: ReturnType<typeof loadConfig> }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2, directUrl: config.databaseDirectUrl, preparedStatements: config.databasePreparedStatements });
  // Events these commands write (a reconciliation applying a refund) get their buyer mails as in the server.
  registerMailHook();
  try {
    await database.migrate();
    await verifyMasterKey(database.db, config.masterKey);
    // Links these commands send or print point where the server really is (its recorded address), not at a guess.
    config.publicBaseUrl = (await resolvePublicAddress(database.db, process.env, config.publicBaseUrl)).url;
    return await fn({ db: database.db, clock: systemClock, config });
  } finally {
    await database.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  // Nothing but `commerce start` starts a server: a bare `commerce` and `--help` anywhere print the usage and stop.
  if (argv.length === 0 || argv[0] === 'help') {
    process.stdout.write(helpFor(argv.slice(1)) + '\n');
    return;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(helpFor(argv) + '\n');
    return;
  }
  const [cmd, sub, ...rest] = argv;
  const args = [sub, ...rest].filter((x): x is string => x !== undefined);
  switch (cmd) {
    case 'start':
      return startCommand(args);
    case 'worker':
      return workerCommand();
    case 'migrate': {
      const config = loadConfig();
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1, directUrl: config.databaseDirectUrl, preparedStatements: config.databasePreparedStatements });
      const applied = await database.migrate();
      await database.close();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      return;
    }
    case 'store': {
      if (sub === 'token' || sub === 'verify') {
        const store = flag(args, 'store');
        if (!store) throw new Error('--store is required');
        if (sub === 'verify') {
          const view = await withDb((deps) => setPublicContactVerified(deps, store, !args.includes('--unverify')));
          process.stdout.write(`store id              : ${view.id}\npublic contact verified: ${view.publicContactVerified}\n`);
          return;
        }
        const action = rest[0];
        if (action === 'rotate') {
          const res = await withDb((deps) => rotateOwnerToken(deps, store));
          process.stdout.write(`store id    : ${res.storeId}\nowner token : ${res.ownerToken}\n(the previous owner token no longer works)\n`);
          return;
        }
        if (action === 'revoke') {
          await withDb((deps) => revokeOwnerToken(deps, store));
          process.stdout.write(`store id    : ${store}\nowner token revoked; issue a new one with: commerce store token rotate --store ${store}\n`);
          return;
        }
        break;
      }
      if (sub !== 'create') break;
      const name = flag(args, 'name');
      if (!name) throw new Error('--name is required');
      const res = await withDb((deps) => createStore(deps, { name, publicContactVerified: args.includes('--verified') }));
      process.stdout.write(
        `store id    : ${res.store.id}\nowner token : ${res.ownerToken}\n` +
          `Next (a bare store has no API key, no dashboard member and no allowed return URL yet):\n` +
          `  npx commerce key create --store ${res.store.id} --mode test\n` +
          `  npx commerce member create --store ${res.store.id} --email <owner e-mail> --name <name> --role owner\n` +
          `  PUT /admin/v1/store/settings/test {"returnUrlDomains":["localhost"]} with the owner token\n` +
          `(\`npx commerce setup --name NAME --email OWNER_EMAIL\` makes a store with all of these in one step)\n`,
      );
      return;
    }
    case 'key': {
      if (sub !== 'create') break;
      const store = flag(args, 'store');
      const mode = flag(args, 'mode');
      if (!store || (mode !== 'test' && mode !== 'live')) throw new Error('--store and --mode test|live are required');
      const scopes = (flag(args, 'scopes')?.split(',') ?? ALL_SCOPES) as Scope[];
      const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (bad.length) throw new Error(`unknown scopes: ${bad.join(', ')}`);
      const ips = flag(args, 'ip')?.split(',') ?? null;
      const badIps = (ips ?? []).filter((e) => canonicalAllowlistEntry(e) === null);
      if (badIps.length) throw new Error(`--ip: not a canonical IPv4/IPv6 address or CIDR (e.g. 10.1.2.3, 10.0.0.0/8, 2001:db8::/32): ${badIps.join(', ')}`);
      const res = await withDb((deps) =>
        createApiKey(deps, store, {
          mode,
          name: flag(args, 'name') ?? 'cli',
          scopes,
          ipAllowlist: ips,
          productIds: flag(args, 'products')?.split(',') ?? null,
        }),
      );
      process.stdout.write(`key id : ${res.apiKey.id}\napi key: ${res.secret}\n`);
      return;
    }
    case 'member': {
      if (await memberCommand(sub, args, withDb)) return;
      break;
    }
    case 'reconcile': {
      const out = await withDb((deps) => reconcileCommand(deps, args));
      process.stdout.write(out.text);
      if (out.failed) process.exitCode = 1;
      return;
    }
    case 'backup':
    case 'restore': {
      const file = sub;
      if (!file || file.startsWith('-')) throw new Error(`usage: commerce ${cmd} FILE`);
      const env = process.env;
      const dataDir = env.DATA_DIR || './data';
      if (env.DATABASE_URL) {
        if (cmd === 'backup' && backupPostgres(env.DATABASE_URL, file)) {
          process.stdout.write(`backup written: ${file} (pg_dump --format=custom)\nRestoring it needs the same MASTER_KEY.\n`);
          return;
        }
        process.stdout.write(POSTGRES_BACKUP_HELP + '\n');
        if (cmd === 'backup') process.exitCode = 1;
        return;
      }
      if (cmd === 'backup') {
        const { bytes, from } = await backupEmbedded(dataDir);
        writeBackup(file, bytes);
        process.stdout.write(
          `backup written: ${file} (${bytes.length} bytes, ${from === 'server' ? 'from the running server' : 'the server was not running'})\n` +
            `The master key is not in it: keep ${env.MASTER_KEY ? 'MASTER_KEY' : join(dataDir, 'master.key')} with it. Without the same key a restored database cannot decrypt its secrets.\n`,
        );
        return;
      }
      // Without the key that sealed them, the restored secrets (gateway and webhook secrets, license keys) are unreadable,
      // and a start would generate a new master.key: refuse instead.
      const masterKey = readMasterKey(env, dataDir);
      if (!masterKey) {
        throw new Error(
          `restore needs the master key of the backed-up database: set MASTER_KEY, or copy its master.key into ${dataDir} (DATA_DIR), then run restore again`,
        );
      }
      // The backup carries its key check value: a restore under another key is refused (and changes nothing).
      const res = await restoreEmbedded(dataDir, readBackup(file), masterKey);
      process.stdout.write(
        `restored ${file} into ${join(dataDir, 'pglite')} (${res.migrations} migrations recorded; newer ones are applied at the next start)\n` +
          (res.movedAside ? `the previous database was moved to ${res.movedAside}\n` : '') +
          (res.keyChecked
            ? `the master key in ${env.MASTER_KEY ? 'MASTER_KEY' : join(dataDir, 'master.key')} matches the backup's key check value\n`
            : `It reads its secrets with the master key in ${env.MASTER_KEY ? 'MASTER_KEY' : join(dataDir, 'master.key')}: it must be the one in use when the backup was taken (this backup holds no key check value or sealed secret to check it against).\n`),
      );
      return;
    }
    case 'demo': {
      const out = await withDb(async (deps) => demoBanner(await createDemo(deps), deps.config.publicBaseUrl));
      process.stdout.write(out + '\n');
      return;
    }
    case 'setup': {
      const name = flag(args, 'name');
      const email = flag(args, 'email');
      if (!name || !email) throw new Error('--name and --email are required (the store\'s name and its owner\'s e-mail)');
      const out = await withDb(async (deps) => {
        const r = await setupStore(deps, { name, email, ownerName: flag(args, 'owner-name'), returnDomains: flag(args, 'return-domains')?.split(',') });
        return setupBanner(r, deps.config.publicBaseUrl, { print: args.includes('--print') });
      });
      process.stdout.write(out + '\n');
      return;
    }
  }
  process.stderr.write(`unknown command: commerce ${argv.join(' ')}\n\n${HELP}\n`);
  process.exitCode = 2;
}
