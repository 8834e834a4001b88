// Kysely table types of the refunds module; add this module's tables here (composed into DB in src/db/types.ts).
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface RefundsTables {}
