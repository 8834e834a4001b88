// The yearly upcoming-renewal notice scan lives with the subscriptions (src/subscriptions/renewal/upcoming-notice.ts)
// so a test clock's advance can run it; the mail module schedules it and mails what it writes.
export { runRenewalNoticesOnce } from '../subscriptions/renewal/upcoming-notice';
