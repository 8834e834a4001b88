import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors';

/** Placeholder answer for a documented operation whose module has not landed yet. */
export async function notImplemented(): Promise<never> {
  throw new ApiError('NOT_IMPLEMENTED');
}

/** Response schema for operations whose body is designed in a later issue. */
export const PendingBody = Type.Object({}, { additionalProperties: true, description: 'Designed when this operation is implemented' });
