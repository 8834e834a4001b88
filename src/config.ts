/**
 * The service's settings: the `Config` every part reads, and `loadConfig`, which reads them from the environment once
 * at start (each value checked in config-values.ts; the master key in master-key.ts). See README "Configuration".
 */
import { randomBytes } from 'node:crypto';
import { atMost, bool, int, logFormat, metricsListen, metricsToken, parsePorts, parseTrustProxy, reconciliationSchedule, redisKeyPrefix, settlementSchedule, smtp, type Env } from './config-values';
import { loadMasterKey } from './master-key';

/** Every setting the service reads from its environment, validated once at start. See README "Configuration". */
export interface Config {
  port: number;
  host: string;
  /** Base URL buyers and apps reach this service at; used to build payment-page and portal links. */
  publicBaseUrl: string;
  /** PostgreSQL connection string; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | null;
  /**
   * DATABASE_DIRECT_URL: a direct connection to PostgreSQL (not through PgBouncer) for LISTEN/NOTIFY (cache
   * invalidation across processes) and migrations (a session advisory lock); defaults to DATABASE_URL. Set it when
   * DATABASE_URL points at a pooler in transaction mode, where a session's LISTEN or lock would land on a server
   * connection other clients then share.
   */
  databaseDirectUrl: string | null;
  /**
   * DATABASE_PREPARED_STATEMENTS: run parameterized queries as named prepared statements (planned once per
   * connection). Named statements live in a server session, so PgBouncer before 1.21 in transaction mode breaks them.
   * Default: on, except off when DATABASE_DIRECT_URL differs from DATABASE_URL (a pooler is in front); set it
   * explicitly to override either way.
   */
  databasePreparedStatements: boolean;
  dataDir: string;
  databasePoolSize: number;
  redisUrl: string | null;
  /** Prepended to every Redis key this deployment writes (REDIS_KEY_PREFIX), so deployments can share one Redis. */
  redisKeyPrefix: string;
  logLevel: string;
  /**
   * `json` (pino's JSON lines, production) or `pretty` (one readable line per entry through pino-pretty, a development
   * dependency, in a worker thread). LOG_FORMAT; by default `pretty` when stdout is a terminal, `json` otherwise.
   */
  logFormat: 'json' | 'pretty';
  /**
   * Fastify `trustProxy`: false, a hop count, or the proxies' addresses/CIDRs. Never `true`: that would believe the
   * left-most X-Forwarded-For entry, which the client writes.
   */
  trustProxy: false | number | string | string[];
  bodyLimitBytes: number;
  /** Operator token that may create stores through the seller console API. Unset: only the CLI creates stores. */
  adminToken: string | null;
  /**
   * Bearer token a scraper sends to `GET /metrics` (METRICS_TOKEN). Unset with no METRICS_LISTEN: /metrics answers
   * only requests from this machine that came through no proxy (see src/platform/http/metrics.ts).
   */
  metricsToken: string | null;
  /** A listener of its own for /metrics only (METRICS_LISTEN, `host:port`; a bare port binds 127.0.0.1). */
  metricsListen: { host: string; port: number } | null;
  /** 32-byte key that encrypts stored secrets (license signing keys, gateway secrets). */
  masterKey: Buffer;
  apiKeyGraceHours: number;
  rateLimitPerMinute: number;
  idempotencyRetentionHours: number;
  /** Days a finished job is kept after its last change: done (JOB_RETENTION_DONE_DAYS), dead/failed (JOB_RETENTION_DEAD_DAYS). */
  jobRetentionDoneDays: number;
  jobRetentionDeadDays: number;
  /** Days a sent, captured (test-mode) or failed mail is kept in mail_outbox after its last change (MAIL_RETENTION_DAYS). */
  mailRetentionDays: number;
  /** Run the background workers (webhook delivery, jobs, maintenance) inside the server process. */
  runWorkers: boolean;
  /**
   * DRAIN_DELAY_MS: after SIGTERM the server answers /ready 503 and keeps serving this long before it closes its
   * listener, so a proxy's health check sees it leave before connections are refused. Default 5000 with DATABASE_URL
   * (several instances behind a proxy), 0 on the embedded database (one process, nobody to tell); 0 is allowed.
   */
  drainDelayMs: number;
  /**
   * SHUTDOWN_TIMEOUT_MS (default 30000): after the listener closes, how long in-flight requests and the job a worker is
   * running may take before the process exits anyway (with status 1).
   */
  shutdownTimeoutMs: number;
  /**
   * Development only (WEBHOOK_ALLOW_LOOPBACK): allow test-mode webhook delivery to loopback addresses, and then only to
   * the ports in `webhookLoopbackPorts`. Never applies to live mode.
   */
  webhookAllowLoopback: boolean;
  /**
   * WEBHOOK_LOOPBACK_PORTS: the only loopback ports a test-mode webhook may reach when `webhookAllowLoopback` is on
   * (comma-separated; empty: none). Without this list any store could call any local service (admin ports, the
   * database's HTTP interfaces) and read its answer. Required when WEBHOOK_ALLOW_LOOPBACK=true.
   */
  webhookLoopbackPorts: readonly number[];
  licenseRateLimitPerMinute: number;
  licenseIpRateLimitPerMinute: number;
  licenseNotFoundLimit: number;
  licenseNotFoundWindowSeconds: number;
  licenseNotFoundBlockSeconds: number;
  /** Payment attempts (form submissions) one client address may make per hour on the hosted pages: card-testing defence. */
  payAttemptsPerIpPerHour: number;
  /** Payment attempts one checkout session accepts over its life. */
  payAttemptsPerSession: number;
  /**
   * Coupon applications on the hosted page, counted apart from payment attempts (a buyer fixing a typo in a code must
   * not use up the tries that pay): per client address per hour, and per session per hour. They bound guessing codes.
   */
  couponTriesPerIpPerHour: number;
  couponTriesPerSession: number;
  /** Toss Payments API base URL (override only to point at a local fake in tests). */
  tossApiBaseUrl: string;
  /** How long to wait for Toss before treating the outcome as unknown (confirm, cancel, lookups, billing-key issue). */
  tossTimeoutMs: number;
  /**
   * How long to wait for Toss's billing charges and transaction listings, which Toss says may take up to 60 s
   * (at least 60 s; kept apart from `tossTimeoutMs` so a slow card company never turns a charge into "unknown").
   */
  tossBillingTimeoutMs: number;
  /** PortOne V2 API base URL (override only to point at a local fake in tests). Its calls use the Toss deadlines above. */
  portoneApiBaseUrl: string;
  /**
   * 세금계산서 provider (src/tax/invoices/): TAX_INVOICE_PROVIDER `simulator` (default: nothing reaches 국세청) or
   * `portone` (PortOne's V2 B2B tax-invoice API with PORTONE_B2B_API_SECRET; test mode passes PortOne's `test=true`).
   * PORTONE_B2B_API_BASE_URL is overridden only to point at a local fake in tests.
   */
  taxInvoiceProvider: 'simulator' | 'portone';
  portoneB2bApiSecret: string | null;
  portoneB2bApiBaseUrl: string;
  /**
   * How long an API key's row may be served from memory (0 turns the cache off). Rotation and revocation reach every
   * process at once through database notifications; this bounds staleness if a notification is ever lost.
   */
  apiKeyCacheMs: number;
  /** How long a product page of the public API may be served from memory (0 = off); product writes drop it at once. */
  productCacheMs: number;
  /**
   * How long a license read by POST /v1/licenses/verify may be served from memory (0 turns the cache off). Changes of
   * the license or its activations empty it in every process at commit (database notifications), and at once in the
   * process that wrote; status and expiry are still evaluated against the clock on every request.
   */
  licenseCacheMs: number;
  /**
   * Log one line per request (method, url, status, ms). Off by default with JSON logs (errors and slow requests are
   * always logged); on by default with pretty logs, where a developer watches requests go by.
   */
  accessLog: boolean;
  /** Requests slower than this are logged at warn level. */
  slowRequestMs: number;
  /** Benchmark only: register the reference routes under /bench (src/bench/reference.ts). Never in production. */
  benchReferenceRoutes: boolean;
  /** SETTLEMENT_SCHEDULE: `weekly` (default) settles orders past their withdrawal window once a KST week; `off`: only the console does. */
  settlementSchedule: 'weekly' | 'off';
  /**
   * RECONCILIATION_SCHEDULE: `daily` (default) compares the previous KST day with Toss for every store and mode with
   * Toss keys once a day, from RECONCILIATION_HOUR_KST on; `off`: only on demand (console, dashboard, CLI).
   */
  reconciliationSchedule: 'daily' | 'off';
  /**
   * TRIAL_NOTICE_DAYS (1–365, default 30): a free trial's conversion notice (`trial_will_end`) is written this many
   * days before its first charge; a trial no longer than that gets one at signup and another 3 days before its end.
   */
  trialNoticeDays: number;
  /** RECONCILIATION_HOUR_KST (0–23, default 6): the KST hour from which the daily run reconciles the day before. */
  reconciliationHourKst: number;
  /** RECONCILIATION_PAGE_SIZE (1–5000, default 1000): transactions asked of Toss per page (`limit`). */
  reconciliationPageSize: number;
  /**
   * SMTP_URL (`smtp://user:pass@host:587` or `smtps://…`): when set, operator CLI and dashboard mail a member's new
   * password instead of only showing it. Holds a secret: never log it (REDACT in src/app.ts covers `*.smtpUrl`).
   */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of those mails (`Store <no-reply@example.com>`); required with SMTP_URL. */
  mailFrom: string | null;
  /** MAIL_RENEWAL_NOTICE_DAYS (1–90, default 30): days before a yearly plan's renewal that the buyer is told (src/mail). */
  mailRenewalNoticeDays: number;
  /**
   * DASHBOARD_STEP_UP_MINUTES (0–1440, default 10): how long a second factor given at sign-in or at a step-up covers
   * the dashboard's actions that move money or widen access (src/dashboard/step-up-actions.ts); 0 asks every time.
   */
  dashboardStepUpMinutes: number;
}
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 3000, 0);
  const format = logFormat(env.LOG_FORMAT);
  const dataDir = env.DATA_DIR || './data';
  const databaseUrl = env.DATABASE_URL || null;
  if (env.DATABASE_DIRECT_URL && !databaseUrl) throw new Error('DATABASE_DIRECT_URL needs DATABASE_URL: it is the direct connection beside a pooled one');
  const databaseDirectUrl = databaseUrl ? env.DATABASE_DIRECT_URL || databaseUrl : null;
  const config: Config = {
    port,
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl,
    databaseDirectUrl,
    databasePreparedStatements: bool(env, 'DATABASE_PREPARED_STATEMENTS', databaseDirectUrl === databaseUrl),
    dataDir,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1),
    redisUrl: env.REDIS_URL || null,
    redisKeyPrefix: redisKeyPrefix(env.REDIS_KEY_PREFIX),
    logLevel: env.LOG_LEVEL || 'info',
    logFormat: format,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    adminToken: env.ADMIN_TOKEN || null,
    metricsToken: metricsToken(env.METRICS_TOKEN),
    metricsListen: metricsListen(env.METRICS_LISTEN),
    masterKey: overrides.masterKey ?? (overrides.dataDir?.startsWith('memory://') ? randomBytes(32) : loadMasterKey(env.MASTER_KEY, dataDir, !databaseUrl)),
    apiKeyGraceHours: int(env, 'API_KEY_GRACE_HOURS', 24, 0),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 300, 1),
    idempotencyRetentionHours: int(env, 'IDEMPOTENCY_RETENTION_HOURS', 24, 1),
    jobRetentionDoneDays: int(env, 'JOB_RETENTION_DONE_DAYS', 7, 1),
    jobRetentionDeadDays: int(env, 'JOB_RETENTION_DEAD_DAYS', 30, 1),
    mailRetentionDays: int(env, 'MAIL_RETENTION_DAYS', 30, 1),
    runWorkers: bool(env, 'RUN_WORKERS', true),
    drainDelayMs: atMost(int(env, 'DRAIN_DELAY_MS', databaseUrl ? 5000 : 0, 0), 600_000, 'DRAIN_DELAY_MS'),
    shutdownTimeoutMs: atMost(int(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 1000), 3_600_000, 'SHUTDOWN_TIMEOUT_MS'),
    webhookAllowLoopback: bool(env, 'WEBHOOK_ALLOW_LOOPBACK', false),
    webhookLoopbackPorts: parsePorts(env.WEBHOOK_LOOPBACK_PORTS, 'WEBHOOK_LOOPBACK_PORTS'),
    licenseRateLimitPerMinute: int(env, 'LICENSE_RATE_LIMIT_PER_MINUTE', 60, 1),
    licenseIpRateLimitPerMinute: int(env, 'LICENSE_IP_RATE_LIMIT_PER_MINUTE', 120, 1),
    licenseNotFoundLimit: int(env, 'LICENSE_NOT_FOUND_LIMIT', 20, 1),
    licenseNotFoundWindowSeconds: int(env, 'LICENSE_NOT_FOUND_WINDOW_SECONDS', 600, 1),
    licenseNotFoundBlockSeconds: int(env, 'LICENSE_NOT_FOUND_BLOCK_SECONDS', 900, 1),
    payAttemptsPerIpPerHour: int(env, 'PAY_ATTEMPTS_PER_IP_PER_HOUR', 30, 1),
    payAttemptsPerSession: int(env, 'PAY_ATTEMPTS_PER_SESSION', 10, 1),
    couponTriesPerIpPerHour: int(env, 'COUPON_TRIES_PER_IP_PER_HOUR', 60, 1),
    couponTriesPerSession: int(env, 'COUPON_TRIES_PER_SESSION', 20, 1),
    tossApiBaseUrl: (env.TOSS_API_BASE_URL || 'https://api.tosspayments.com').replace(/\/+$/, ''),
    tossTimeoutMs: int(env, 'TOSS_TIMEOUT_MS', 10_000, 100),
    tossBillingTimeoutMs: int(env, 'TOSS_BILLING_TIMEOUT_MS', 65_000, 60_000),
    portoneApiBaseUrl: (env.PORTONE_API_BASE_URL || 'https://api.portone.io').replace(/\/+$/, ''),
    taxInvoiceProvider: env.TAX_INVOICE_PROVIDER === 'portone' ? 'portone' : 'simulator',
    portoneB2bApiSecret: env.PORTONE_B2B_API_SECRET || null,
    portoneB2bApiBaseUrl: (env.PORTONE_B2B_API_BASE_URL || 'https://api.portone.io').replace(/\/+$/, ''),
    apiKeyCacheMs: int(env, 'API_KEY_CACHE_MS', 5000, 0),
    productCacheMs: int(env, 'PRODUCT_CACHE_MS', 2000, 0),
    licenseCacheMs: int(env, 'LICENSE_CACHE_MS', 2000, 0),
    accessLog: bool(env, 'ACCESS_LOG', format === 'pretty'),
    slowRequestMs: int(env, 'SLOW_REQUEST_MS', 1000, 1),
    settlementSchedule: settlementSchedule(env.SETTLEMENT_SCHEDULE),
    reconciliationSchedule: reconciliationSchedule(env.RECONCILIATION_SCHEDULE),
    trialNoticeDays: atMost(int(env, 'TRIAL_NOTICE_DAYS', 30, 1), 365, 'TRIAL_NOTICE_DAYS'),
    reconciliationHourKst: atMost(int(env, 'RECONCILIATION_HOUR_KST', 6, 0), 23, 'RECONCILIATION_HOUR_KST'),
    reconciliationPageSize: atMost(int(env, 'RECONCILIATION_PAGE_SIZE', 1000, 1), 5000, 'RECONCILIATION_PAGE_SIZE'),
    benchReferenceRoutes: bool(env, 'BENCH_REFERENCE_ROUTES', false),
    ...smtp(env.SMTP_URL, env.MAIL_FROM),
    mailRenewalNoticeDays: atMost(int(env, 'MAIL_RENEWAL_NOTICE_DAYS', 30, 1), 90, 'MAIL_RENEWAL_NOTICE_DAYS'),
    // A day at most: a longer window would let a stolen session cookie move money for most of its 12-hour life.
    dashboardStepUpMinutes: atMost(int(env, 'DASHBOARD_STEP_UP_MINUTES', 10, 0), 1440, 'DASHBOARD_STEP_UP_MINUTES'),
  };
  const merged = { ...config, ...overrides };
  // Judged on what the environment asked for: programmatic overrides (tests) may fill the port list later.
  if (config.webhookAllowLoopback && merged.webhookLoopbackPorts.length === 0) {
    throw new Error(
      'WEBHOOK_ALLOW_LOOPBACK=true needs WEBHOOK_LOOPBACK_PORTS: the comma-separated loopback ports test-mode webhooks may reach (e.g. WEBHOOK_LOOPBACK_PORTS=4000,4001)',
    );
  }
  return merged;
}
