import type { Module } from '../deps';
import { registerEventHook } from '../platform/events';
import { runMailOnce } from './dispatch';
import { mailOnEvent } from './hook';
import { runRenewalNoticesOnce } from './renewal-notice';
import { runRefundRemindersOnce } from './refund-reminder';
import { pruneMailsOnce } from './retention';

/** Mail to buyers: the event hook that writes the outbox, the worker that sends it, and the renewal-notice scan. */
/** Registers the outbox hook; also called by CLI commands that write events without building the app. */
export function registerMailHook(): void {
  registerEventHook('mail', mailOnEvent);
}

const mailModule: Module = async (_app, deps) => {
  registerMailHook();
  deps.worker.addTask({ name: 'mail.send', intervalMs: 1_000, run: (now) => runMailOnce(deps, now) });
  // Daily in effect (each period is noticed once); hourly so a worker restart or a test clock move is caught soon.
  // A day before a refund request's automatic approval, its store's owners are reminded (refund-reminder.ts).
  deps.worker.addTask({ name: 'mail.refund-reminders', intervalMs: 600_000, run: (now) => runRefundRemindersOnce(deps, now) });
  // Retention: finished mails go after MAIL_RETENTION_DAYS (retention.ts).
  deps.worker.addTask({ name: 'mail.prune', intervalMs: 3_600_000, run: (now) => pruneMailsOnce(deps, now) });
  deps.worker.addTask({ name: 'mail.renewal-notices', intervalMs: 3_600_000, run: (now) => runRenewalNoticesOnce(deps, now) });
};

export default mailModule;
