// OpenAPI descriptions of the licenses operations: the decisions the contract leaves open, written where clients read them.

const SIGNATURE =
  'Every 200 answer carries `Service-Signature: kid="<kid>", alg="ed25519", sig="<base64>"`: an Ed25519 signature over the exact bytes of the ' +
  'response body (UTF-8 JSON, verify before parsing) by the key `kid` from `GET /v1/licenses/signing-keys`. Check also that `nonce` is the one ' +
  'you sent and that `issuedAt` is within 5 minutes of your clock. Error answers (400, 409, 429, 5xx) are never signed.\n\n' +
  'Besides the contract\'s fields, every signed answer (`not_found` included) carries `productId` (the request\'s, exactly as sent) and ' +
  '`keyFingerprint` = base64url without padding of SHA-256(UTF-8 of `commerce-license-key-fingerprint:v1:` + the request key normalized: ' +
  'Unicode NFC, upper-case, whitespace removed). The signing key is service-wide, so check both against what you asked: without them a proxy ' +
  'could send your request for one license as a request for another (another product, even another store) and hand you that signed answer.';

const STATUS =
  'The status is evaluated when the answer is signed: `expired` once `expiresAt` has passed, `revoked` after the seller revoked or re-issued the ' +
  'license. An unknown key, a key of another product, or a seller-issued key, answers 200 with `status: "not_found"`, `activation: null`, `activationCount: 0` and ' +
  '`mode` taken from the product named by `productId` (`test` when there is no such product).';

const SELLER =
  'Seller-issued licenses (products with `license.mode` `seller`: the key comes from the seller\'s endpoint through `license.issue`): the ' +
  'service keeps what the seller answered for server reads and the console, but, as the contract says, keys issued by a seller-side integration ' +
  'cannot be verified here: the app API answers them `not_found` (signed, like any unknown key), whatever their status. The seller\'s own ' +
  'system verifies its keys. Keys a seller makes outside `license.issue` have no record in the service at all.';

const LIMITS =
  'Abuse limits (configurable): per client address (IPv6 counted per /64) `LICENSE_IP_RATE_LIMIT_PER_MINUTE` calls a minute (default 120) and per ' +
  'license key `LICENSE_RATE_LIMIT_PER_MINUTE` (default 60), above which `429 LICENSE_RATE_LIMITED`; an address that gets more than ' +
  '`LICENSE_NOT_FOUND_LIMIT` (default 20) `not_found` answers within `LICENSE_NOT_FOUND_WINDOW_SECONDS` (default 600) is refused with ' +
  '`429 LICENSE_LOOKUP_BLOCKED` for `LICENSE_NOT_FOUND_BLOCK_SECONDS` (default 900), whatever key it sends. Both carry `Retry-After` (seconds).';

const COMMON = `No API key and no Idempotency-Key; callable from browsers (CORS open to any origin). The key is matched ignoring case and spaces.\n\n${STATUS}\n\n${SIGNATURE}\n\n${LIMITS}\n\n${SELLER}`;

export const DOCS = {
  activate:
    'Creates an activation (a device slot) on an active license and answers it in `activation`; keep its `id` for verify and deactivate. Each call creates a new activation. ' +
    'A license that is not active (expired, revoked, pending) is answered with its status and `activation: null`, and no activation is made. ' +
    'When the live activations already reach `maxActivations` the answer is `409 MAX_ACTIVATIONS_REACHED` (`details: { maxActivations, activationCount }`); ' +
    'to move to a new device, deactivate the old activation first. Concurrent activations never exceed the limit.\n\n' +
    COMMON,
  deactivate:
    'Deactivates the activation `activationId` of this license (sets `deactivatedAt`), freeing its slot, whatever the license\'s status. ' +
    'Deactivating an already deactivated activation answers it unchanged; an `activationId` that is not this license\'s answers `activation: null`.\n\n' +
    COMMON,
  verify:
    'Answers the license\'s current status. With `activationId`, the activation is answered too and, while it is live, its `lastVerifiedAt` is set to now; ' +
    'a deactivated activation is answered as it is (so the app learns it was deactivated) and an unknown one as `activation: null`.\n\n' +
    COMMON,
  signingKeys:
    'The Ed25519 public keys that sign license app answers, newest first, as base64 of the raw 32 bytes. No key; CORS open; cacheable for 60 seconds. ' +
    'Rotation: a new key is listed here (its `createdAt`) 5 minutes before it signs anything, and a key stays listed for 24 hours after it stops signing. ' +
    'Fetch the list again when an answer names a `kid` you do not have.',
  list: `Licenses of the key's store and mode, newest first by issue time. A product-restricted key sees only its products' licenses. Optional filters \`productId\`, \`orderId\`. Each item carries its activations.\n\n${SELLER}`,
  get: `A license with all its activations (oldest first, deactivated ones included); \`activationCount\` counts the live ones. A license of a product outside a restricted key's range is \`LICENSE_NOT_FOUND\`.\n\n${SELLER}`,
  revoke: 'Revokes the license: from now on the app API answers `revoked` (a seller-issued license answers `not_found` there either way). Revoking a pending seller-issued license also stops its `license.issue` requests. An already revoked license answers `409 LICENSE_NOT_ACTIVE`.',
  reissue:
    'Key rotation: creates a new license for the same order, product, buyer, expiry and activation limit, with `rotatedFrom` = this license\'s id, ' +
    'and revokes this one (reason `reissued` unless given). Activations are not carried over. A service-issued license gets a new key at once; ' +
    'a seller-issued one becomes a new pending license and a new `license.issue` request. A revoked license cannot be re-issued (`409 LICENSE_NOT_ACTIVE`).',
  signingKeysAdmin: 'Every signing key with its schedule: `scheduled` (listed, signs from `signsFrom`), `active` (signs now), `retired` (listed until `listedUntil`).',
  rotate:
    'Creates a new key, lists it now and lets it sign from 5 minutes from now; the current key signs until then and stays listed 24 hours longer. ' +
    'Private keys are stored sealed with the master key (AES-256-GCM). The keys are service-wide, hence operator-only.',
};
