import { createServer } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail the local SMTP server accepted: envelope recipient, AUTH user, decoded Subject and text body. */
export interface ReceivedMail {
  to: string[];
  user: string | null;
  subject: string;
  text: string;
  raw: string;
}

/** Decodes RFC 2047 encoded words (=?UTF-8?B?…?= / =?UTF-8?Q?…?=), as nodemailer writes a Korean Subject. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, enc: string, data: string) =>
      enc.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : qp(data.replace(/_/g, ' ')),
    );
}

function qp(s: string): string {
  const bytes: number[] = [];
  const src = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '=' && /^[0-9A-F]{2}$/i.test(src.slice(i + 1, i + 3))) {
      bytes.push(parseInt(src.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(src[i], 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A single-part text/plain message, parsed simply: headers, then the body per Content-Transfer-Encoding. */
export function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const cte = header('Content-Transfer-Encoding').toLowerCase();
  const text = cte === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : cte === 'quoted-printable' ? qp(body) : body;
  return { subject: decodeWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

/** A local SMTP server on 127.0.0.1 (no TLS, AUTH optional and accepted) that keeps what it receives. */
export async function startSmtp(): Promise<{ port: number; mails: ReceivedMail[]; next(): Promise<ReceivedMail>; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const waiters: Array<(m: ReceivedMail) => void> = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), user: (session.user as string | undefined) ?? null, raw, ...parseMail(raw) };
        mails.push(mail);
        waiters.shift()?.(mail);
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  let seen = 0;
  return {
    port,
    mails,
    // Mails are read in order: the next one not yet handed out (already received, or the one that arrives next).
    next: () => (seen < mails.length ? Promise.resolve(mails[seen++]) : new Promise((resolve) => waiters.push((m) => (seen++, resolve(m))))),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A 127.0.0.1 port with nothing listening: a connection to it is refused at once. */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
