// Where credits will be charged. The credits work (balance, deductions with reason
// `intro_deduction` / `match_deduction`) plugs in here; until then these cost nothing.
import type { Executor } from '../../db/client.ts';

/**
 * Called inside the transaction that shares a party's contact details, before anything is
 * written. To charge for an introduction, deduct here and throw INSUFFICIENT_CREDITS (402) when
 * the balance is too small: the transaction then rolls back and nothing is shared.
 */
export async function chargeForContactShare(_tx: Executor, _input: { userId: string; negotiationId: string }): Promise<void> {
  // No charge yet: credits are not built.
}
