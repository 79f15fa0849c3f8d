// Passkeys (WebAuthn, with @simplewebauthn/server): an owner registers and removes them signed in,
// and once they have one, approving a contract in the browser needs it. The relying party is the
// server's public origin (PUBLIC_URL); each challenge is one use, for one owner and one purpose,
// and an approval's challenge is bound to the contract and the terms hash the owner was shown.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import * as contractsRepo from '../../db/repositories/contracts.ts';
import * as repo from '../../db/repositories/passkeys.ts';
import { getUser } from '../../db/repositories/users.ts';
import { ApiError, conflict, notFound, validationFailed } from '../errors.ts';
import { newId } from '../ids.ts';
import { WEBAUTHN_TRANSPORTS, type WebauthnTransport } from '../../db/schema/column-values.ts';
import { contractTermsHash } from './approvals.ts';
import { transition } from '../domain/state-machine.ts';
import { contractTransitions } from '../domain/contract.ts';

/** How long a challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

type Ctx = Pick<Context, 'db' | 'config'>;

/** The relying party: the host and origin the dashboard is served from. */
function relyingParty(ctx: Ctx) {
  const url = new URL(ctx.config.publicUrl);
  return { id: url.hostname, origin: url.origin };
}

const isTransport = (t: string): t is WebauthnTransport => (WEBAUTHN_TRANSPORTS as readonly string[]).includes(t);
const expiry = () => new Date(Date.now() + CHALLENGE_TTL_MS);
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The challenge a browser signed, read from its client data (verification checks it again). */
function challengeOf(clientDataJSON: string, path: string): string {
  try {
    const challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    if (typeof challenge === 'string' && challenge) return challenge;
  } catch {
    /* refused below */
  }
  throw validationFailed(path, 'clientDataJSON holds no challenge');
}

/** A challenge of this owner's for `purpose` that is still open, taken (it cannot be answered twice). */
async function takeOpenChallenge(ctx: Ctx, actor: Actor, clientDataJSON: string, path: string, purpose: repo.ChallengeRow['purpose']) {
  const taken = await repo.takeChallenge(ctx.db, actor.userId, challengeOf(clientDataJSON, path));
  if (!taken || taken.purpose !== purpose || taken.expiresAt.getTime() <= Date.now())
    throw validationFailed(
      path,
      `not the answer to an open ${purpose === 'register' ? 'registration' : 'approval'} challenge of yours: ask for a new one`,
    );
  return taken;
}

/** A WebAuthn verification's result when it verified; otherwise VALIDATION_FAILED at `path`, with the library's reason. */
async function verifiedOr400<T extends { verified: boolean }>(
  path: string,
  failure: string,
  verification: Promise<T>,
): Promise<T & { verified: true }> {
  const result = await verification.catch((err: unknown) => {
    throw validationFailed(path, `${failure}: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (!result.verified) throw validationFailed(path, failure);
  return result as T & { verified: true };
}

export async function registrationOptions(ctx: Ctx, actor: Actor) {
  const user = await getUser(ctx.db, actor.userId);
  if (!user) throw notFound('user');
  const existing = await repo.listPasskeys(ctx.db, actor.userId);
  const options = await generateRegistrationOptions({
    rpName: 'gigmarket',
    rpID: relyingParty(ctx).id,
    userName: user.githubLogin ?? user.displayName,
    userDisplayName: user.displayName,
    userID: Buffer.from(user.id.replaceAll('-', ''), 'hex'),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await repo.insertChallenge(ctx.db, { challenge: options.challenge, userId: actor.userId, purpose: 'register', expiresAt: expiry() });
  return options;
}

export async function registerPasskey(ctx: Ctx, actor: Actor, name: string, credential: RegistrationResponseJSON) {
  const taken = await takeOpenChallenge(ctx, actor, credential.response.clientDataJSON, 'body.credential', 'register');
  const rp = relyingParty(ctx);
  const verification = await verifiedOr400(
    'body.credential',
    'the passkey could not be verified',
    verifyRegistrationResponse({
      response: credential,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    }),
  );
  const { credential: made } = verification.registrationInfo;
  const row = await repo.insertPasskey(ctx.db, {
    id: newId(),
    userId: actor.userId,
    credentialId: made.id,
    publicKey: b64url(made.publicKey),
    counter: made.counter,
    transports: (made.transports ?? []).filter(isTransport),
    name: name.trim(),
  });
  if (!row) throw conflict('this passkey is registered already');
  return row;
}

export function listPasskeys(ctx: Ctx, actor: Actor) {
  return repo.listPasskeys(ctx.db, actor.userId);
}

export async function removePasskey(ctx: Ctx, actor: Actor, id: string) {
  if (!(await repo.deletePasskey(ctx.db, actor.userId, id))) throw notFound('passkey');
}

/** The challenge for approving one contract with a passkey, bound to its terms as they are now. */
export async function approvalOptions(ctx: Ctx, actor: Actor, contractId: string) {
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  transition(contractTransitions, 'contract', contract.status, 'approve');
  const keys = await repo.listPasskeys(ctx.db, actor.userId);
  if (!keys.length) throw new ApiError('INVALID_STATE', 'you have no passkey: approve without one, or register one first');
  const termsHash = contractTermsHash(contract, await contractsRepo.listMilestones(ctx.db, [contract.id]));
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).id,
    allowCredentials: keys.map((p) => ({ id: p.credentialId, transports: p.transports })),
    userVerification: 'preferred',
  });
  await repo.insertChallenge(ctx.db, {
    challenge: options.challenge,
    userId: actor.userId,
    purpose: 'approve',
    contractId: contract.id,
    termsHash,
    expiresAt: expiry(),
  });
  return { options, contract_id: contract.id, revision_count: contract.revisionCount, terms_hash: termsHash };
}

/**
 * A signed-in owner's approval: with no passkey registered, none is needed (undefined); with one,
 * the assertion must answer an open approval challenge for this contract, issued on its current
 * terms, signed by one of the owner's passkeys. Returns the terms hash the challenge was bound to.
 */
export async function checkApprovalPasskey(
  ctx: Ctx,
  actor: Actor,
  contractId: string,
  assertion: AuthenticationResponseJSON | undefined,
): Promise<string | undefined> {
  if (actor.apiKeyId !== null) {
    if (assertion) throw validationFailed('body.passkey', 'a passkey approves in the owner’s browser session, not with an API key');
    return undefined;
  }
  const contract = await contractsRepo.getContractForParty(ctx.db, actor.userId, contractId);
  if (!contract) throw notFound('contract');
  // Only an approval that can happen spends the challenge; the approval refuses the others.
  if (contract.status !== 'pending_owner_approval') return undefined;
  const registered = await repo.countPasskeys(ctx.db, actor.userId);
  if (!registered) {
    if (assertion) throw validationFailed('body.passkey', 'you have no passkey registered');
    return undefined;
  }
  if (!assertion)
    throw new ApiError(
      'PASSKEY_REQUIRED',
      'you registered a passkey, so approving needs it: POST /api/contracts/{id}/approval-challenge, then send the assertion as passkey',
    );
  const taken = await takeOpenChallenge(ctx, actor, assertion.response.clientDataJSON, 'body.passkey', 'approve');
  if (taken.contractId !== contract.id) throw validationFailed('body.passkey', 'the challenge was for another contract');
  const key = await repo.getPasskeyByCredential(ctx.db, actor.userId, assertion.id);
  if (!key) throw validationFailed('body.passkey', 'not one of your passkeys');
  const rp = relyingParty(ctx);
  const verification = await verifiedOr400(
    'body.passkey',
    "the passkey's signature could not be verified",
    verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: key.credentialId,
        publicKey: Buffer.from(key.publicKey, 'base64url'),
        counter: key.counter,
        transports: key.transports,
      },
      requireUserVerification: false,
    }),
  );
  await repo.recordPasskeyUse(ctx.db, key.id, verification.authenticationInfo.newCounter);
  return taken.termsHash ?? undefined;
}
