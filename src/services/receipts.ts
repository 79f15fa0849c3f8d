// Approval receipts: each owner's approval yields a compact JWS (a JWT, EdDSA over Ed25519) that
// anyone can verify with the keys published at /.well-known/jwks.json. The signing key is made on
// first need and kept in the database, so every instance signs with the same one; rotating it
// (the CLI's rotate-receipt-key) retires the old key but keeps publishing it, so receipts it signed
// still verify.
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, SignJWT } from 'jose';
import type { Db, Executor } from '../../db/client.ts';
import * as approvalsRepo from '../../db/repositories/approvals.ts';
import type { ApprovalMethod } from '../../db/schema/column-values.ts';
import type { PartyRole } from '../domain/negotiation.ts';

/** The JWS header's `typ` (RFC 8725 §3.11): a verifier checks it, so no other JWT of ours passes for a receipt. */
export const RECEIPT_TYPE = 'gigmarket-approval+jwt';

/** A key ready to sign: its id and its private half. */
export interface ReceiptSigner {
  kid: string;
  privateKey: KeyObject;
}

/** What a receipt states, beside the standard claims (iss, sub: the approver, jti: the approval's id, iat). */
export interface ReceiptClaims {
  contract_id: string;
  revision_count: number;
  terms_hash: string;
  party_role: PartyRole;
  method: ApprovalMethod;
  api_key_id: string | null;
  hosted_agent_id: string | null;
  approved_at: string;
}

/** Imported private keys by kid: a key never changes once written, only retires. */
const imported = new Map<string, KeyObject>();

async function newKeyRow() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string };
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  return {
    kid: await calculateJwkThumbprint(publicJwk),
    publicJwk,
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/** The active signing key, made now when there is none yet (concurrent first uses agree on one). */
export async function receiptSigner(db: Executor): Promise<ReceiptSigner> {
  let row = await approvalsRepo.activeSigningKey(db);
  if (!row) {
    await approvalsRepo.insertSigningKeyIfNone(db, await newKeyRow());
    row = await approvalsRepo.activeSigningKey(db);
    if (!row) throw new Error('no active receipt signing key after making one');
  }
  let privateKey = imported.get(row.kid);
  if (!privateKey) {
    privateKey = createPrivateKey(row.privateKeyPem);
    imported.set(row.kid, privateKey);
  }
  return { kid: row.kid, privateKey };
}

/** Retires the active key and makes a new one; returns the new key's id. */
export async function rotateReceiptKey(db: Db): Promise<string> {
  const row = await newKeyRow();
  await db.transaction((tx) => approvalsRepo.rotateSigningKey(tx, row));
  return row.kid;
}

/** Signs one approval's receipt. Local work only: safe inside the approval's transaction. */
export function signReceipt(
  signer: ReceiptSigner,
  issuer: string,
  approval: { id: string; userId: string; approvedAt: Date },
  claims: ReceiptClaims,
): Promise<string> {
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'EdDSA', kid: signer.kid, typ: RECEIPT_TYPE })
    .setIssuer(issuer)
    .setSubject(approval.userId)
    .setJti(approval.id)
    .setIssuedAt(Math.floor(approval.approvedAt.getTime() / 1000))
    .sign(signer.privateKey);
}

/** The JWK Set of every receipt key, the retired ones included. */
export async function receiptKeySet(db: Executor) {
  const rows = await approvalsRepo.publicSigningKeys(db);
  return { keys: rows.map((r) => ({ ...r.publicJwk, kid: r.kid, alg: 'EdDSA' as const, use: 'sig' as const })) };
}
