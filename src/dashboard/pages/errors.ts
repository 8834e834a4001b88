import type { ApiError } from '../../platform/errors';

/** The Korean message of a refused action, with the fields it names (VALIDATION_FAILED lists them in details). */
export function errorText(e: ApiError): string {
  // A field whose message is the error's own message (a refusal that names its problem up front) is not repeated.
  const fields = (e.details?.fields as { field: string; message: string }[] | undefined)?.filter((f) => f.message !== e.message);
  return fields?.length ? `${e.message} ${fields.map((f) => `${f.field}: ${f.message}`).join(' · ')}` : e.message;
}
