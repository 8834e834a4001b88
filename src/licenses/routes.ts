import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { notImplemented, PendingBody } from '../platform/http/not-implemented';

// Placeholder routes: documented now, implemented by the licenses module's issue.
const licensesModule: Module = async (app) => {
  app.get('/v1/licenses', op({ operationId: 'listLicenses', summary: 'List licenses', tags: ['Licenses'] }, { auth: 'api_key', scope: 'licenses:read', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/licenses/:id', op({ operationId: 'getLicense', summary: 'Read a license', tags: ['Licenses'] }, { auth: 'api_key', scope: 'licenses:read', errors: ['LICENSE_NOT_FOUND'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/licenses/activate', op({ operationId: 'activateLicense', summary: 'Activate a license (app)', tags: ['License app API'] }, { auth: 'none', errors: ['MAX_ACTIVATIONS_REACHED', 'LICENSE_RATE_LIMITED', 'LICENSE_LOOKUP_BLOCKED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/licenses/deactivate', op({ operationId: 'deactivateLicense', summary: 'Deactivate a license (app)', tags: ['License app API'] }, { auth: 'none', errors: ['LICENSE_RATE_LIMITED', 'LICENSE_LOOKUP_BLOCKED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.post('/v1/licenses/verify', op({ operationId: 'verifyLicense', summary: 'Verify a license (app)', tags: ['License app API'] }, { auth: 'none', errors: ['LICENSE_RATE_LIMITED', 'LICENSE_LOOKUP_BLOCKED'] }, { response: { 200: PendingBody } }), notImplemented);
  app.get('/v1/licenses/signing-keys', op({ operationId: 'listSigningKeys', summary: 'List signing public keys', tags: ['License app API'] }, { auth: 'none', errors: [] }, { response: { 200: PendingBody } }), notImplemented);
};

export default licensesModule;
