import type { Config } from '../config';

/** How a mail leaves: SMTP_URL in production, a stand-in in tests. */
export interface MailTransport {
  send(m: { from: string; to: string; subject: string; text: string; html: string }): Promise<void>;
}

/** The SMTP timeouts: bounded, as for the dashboard's member mails (nodemailer's defaults wait up to 2 minutes). */
export const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

/** One SMTP connection per send, through SMTP_URL. */
export async function smtpTransport(deps: { config: Pick<Config, 'smtpUrl'> }): Promise<MailTransport> {
  // Loaded on first use: most deployments never mail, and the module costs resident memory in every process.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({ url: deps.config.smtpUrl!, ...SMTP_TIMEOUTS });
  return {
    async send(m) {
      try {
        await transport.sendMail(m);
      } finally {
        transport.close();
      }
    },
  };
}
