// What an owner's approval is bound to: the contract's terms in one canonical form, and its
// SHA-256. The form holds only what the two parties agreed (no statuses, no timestamps), under the
// same names as the Contract resource, so anyone holding a contract can compute the hash again.
// RFC 8785 (JSON Canonicalization Scheme) fixes the bytes: keys sorted, no whitespace, numbers and
// strings in one spelling, so the hash is the same on every database and after every restart.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** Names the form: a later change to what is hashed gets a new name, and old hashes keep their meaning. */
export const TERMS_FORMAT = 'gigmarket.contract-terms.v1';

export interface TermsMilestone {
  position: number;
  title: string;
  amount_cents: number;
  due_date: string | null;
}

/** The agreed terms of one revision of a contract, as the Contract resource names them. */
export interface ContractTerms {
  format: typeof TERMS_FORMAT;
  contract_id: string;
  revision_count: number;
  gig_id: string;
  client_user_id: string;
  worker_user_id: string;
  currency: string;
  rate_cents: number | null;
  hours_per_week: number | null;
  start_date: string | null;
  payout_delay_days: number;
  milestones: TermsMilestone[];
}

/** The terms of a contract as the API shows it (its milestones in position order). */
export function termsOf(
  contract: Omit<ContractTerms, 'format' | 'contract_id' | 'milestones'> & {
    id: string;
    milestones: readonly TermsMilestone[];
  },
): ContractTerms {
  return {
    format: TERMS_FORMAT,
    contract_id: contract.id,
    revision_count: contract.revision_count,
    gig_id: contract.gig_id,
    client_user_id: contract.client_user_id,
    worker_user_id: contract.worker_user_id,
    currency: contract.currency,
    rate_cents: contract.rate_cents,
    hours_per_week: contract.hours_per_week,
    start_date: contract.start_date,
    payout_delay_days: contract.payout_delay_days,
    milestones: [...contract.milestones]
      .sort((a, b) => a.position - b.position)
      .map((m) => ({ position: m.position, title: m.title, amount_cents: m.amount_cents, due_date: m.due_date })),
  };
}

/** The RFC 8785 form of the terms: the exact bytes that are hashed. */
export function canonicalTerms(terms: ContractTerms): string {
  const text = canonicalize(terms);
  if (text === undefined) throw new Error('the contract terms have no canonical form');
  return text;
}

/** SHA-256 of the canonical terms, as 64 lowercase hex digits. */
export function termsHash(terms: ContractTerms): string {
  return createHash('sha256').update(canonicalTerms(terms), 'utf8').digest('hex');
}
