/** The contract's limits on a session's metadata (lengths in Unicode code points); the schema and the model both read them. */
export const METADATA_LIMITS = { maxKeys: 50, maxKeyLength: 40, maxValueLength: 500 } as const;
