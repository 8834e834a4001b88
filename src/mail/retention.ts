import type { AppDeps } from '../deps';
import { DAY } from '../platform/clock';
import { deleteFinishedMailsBefore } from './repo';

/**
 * Retention of the mail outbox (the `mail.prune` task, hourly): sent, captured (test-mode, kept with their body for the
 * dashboard's mailbox) and failed mails are deleted MAIL_RETENTION_DAYS (30) after their last change, 500 rows a
 * statement until none is left. Pending and unconfigured mails (still to be sent) are never deleted.
 */
export async function pruneMailsOnce(deps: Pick<AppDeps, 'db' | 'config'>, now: Date): Promise<number> {
  const before = new Date(now.getTime() - deps.config.mailRetentionDays * DAY);
  let n = 0;
  for (;;) {
    const deleted = await deleteFinishedMailsBefore(deps.db, before);
    n += deleted;
    if (deleted === 0) break;
  }
  return n;
}
