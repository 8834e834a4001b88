import type { ApiError } from '../../platform/errors';

/** The Korean message of a refused action, with the fields it names (VALIDATION_FAILED lists them in details). */
export function errorText(e: ApiError): string {
  const fields = e.details?.fields as { field: string; message: string }[] | undefined;
  return fields?.length ? `${e.message} ${fields.map((f) => `${f.field}: ${f.message}`).join(' · ')}` : e.message;
}
