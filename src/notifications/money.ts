// The money moments of a milestone, told to each party in their own words: funded, released,
// paid, and a payout that failed. The amounts are the milestone's as the API states them: when a
// dispute's resolution divided it, the worker is paid the amount less `refunded_cents`, which went
// back to the client. Pure, like the other templates.
import { formatMoney, formatUtc, quoted, quotes as quoteLines, render, type RenderedNotice } from './templates.ts';

export interface MilestoneNotice {
  /** Who reads it: the client funds and releases, the worker is paid. */
  role: 'client' | 'worker';
  contractTitle: string;
  milestoneTitle: string;
  amountCents: number;
  /** What a dispute's resolution refunded of it to the client; 0 without one. */
  refundedCents: number;
  currency: string;
  /** The contract's page. */
  link: string;
}

const see = (n: MilestoneNotice) => ({ label: 'See the contract', link: n.link });
const quotes = (n: MilestoneNotice) => quoteLines(['Contract', n.contractTitle], ['Milestone', n.milestoneTitle]);

function amounts(n: MilestoneNotice) {
  const money = (cents: number) => formatMoney(cents, n.currency);
  return { total: money(n.amountCents), paid: money(n.amountCents - n.refundedCents), refunded: money(n.refundedCents) };
}

/** A sentence saying what the resolution refunded, to this party; empty without a refund. */
function refundNote(n: MilestoneNotice): string {
  if (n.refundedCents === 0) return '';
  const { total, refunded } = amounts(n);
  return ` Of its ${total}, the dispute's resolution refunded ${refunded} to ${n.role === 'client' ? 'you' : 'the client'}.`;
}

export function milestoneFunded(n: MilestoneNotice): RenderedNotice {
  const { total } = amounts(n);
  const said =
    n.role === 'client'
      ? `You funded a milestone: ${total} is held until you release it.`
      : `The client funded a milestone: ${total} is held for you until the client releases it.`;
  return render(`Milestone funded: ${quoted(n.milestoneTitle)}`, [said, quotes(n), see(n)]);
}

/**
 * Released by the client (paid out `payoutDueAt`), or by a dispute's resolution, which pays the
 * worker's part at once and says what it refunded.
 */
export function milestoneReleased(n: MilestoneNotice & { payoutDueAt: Date | null; byResolution: boolean }): RenderedNotice {
  const { paid, refunded } = amounts(n);
  const client = n.role === 'client';
  let said: string;
  if (!n.byResolution) {
    const when = n.payoutDueAt ? `on ${formatUtc(n.payoutDueAt)}` : 'later';
    said = client
      ? `You released a milestone: ${paid} will be paid out to the worker ${when}.`
      : `The client released a milestone: ${paid} will be paid out to you ${when}.`;
  } else if (n.refundedCents > 0) {
    said = client
      ? `The dispute's resolution released ${paid} of a milestone to the worker, paid out now; ${refunded} is refunded to you.`
      : `The dispute's resolution released ${paid} of a milestone to you, paid out now; the other ${refunded} goes back to the client.`;
  } else {
    said = `The dispute's resolution released a milestone to ${client ? 'the worker' : 'you'}: ${paid}, paid out now.`;
  }
  return render(`Milestone released: ${quoted(n.milestoneTitle)}`, [said, quotes(n), see(n)]);
}

/** Paid out: the worker was paid; the client is told where their money went, never that they were paid. */
export function milestonePaid(n: MilestoneNotice): RenderedNotice {
  const { paid } = amounts(n);
  if (n.role === 'worker') {
    return render(`Paid: ${paid} for ${quoted(n.milestoneTitle)}`, [
      `${paid} for a milestone was paid out to your account.${refundNote(n)}`,
      quotes(n),
      see(n),
    ]);
  }
  return render(`Milestone paid out: ${quoted(n.milestoneTitle)}`, [
    `${paid} for a milestone was paid out to the worker.${refundNote(n)}`,
    quotes(n),
    see(n),
  ]);
}

/** Every retry failed: the amount is still owed and is sent again once the cause is fixed. */
export function payoutFailed(n: MilestoneNotice): RenderedNotice {
  const { paid } = amounts(n);
  if (n.role === 'worker') {
    return render(`Payout failed: ${paid} for ${quoted(n.milestoneTitle)}`, [
      `The payout of ${paid} to your account for a milestone failed after repeated attempts.${refundNote(n)}`,
      quotes(n),
      'The amount is still owed to you: it is sent again once the cause is fixed. Check that your payout account can receive transfers.',
      see(n),
    ]);
  }
  return render(`Payout to the worker failed: ${quoted(n.milestoneTitle)}`, [
    `The payout of ${paid} to the worker for a milestone failed after repeated attempts.${refundNote(n)}`,
    quotes(n),
    'The amount stays owed to the worker and is sent again once the cause is fixed; nothing more is charged to you.',
    see(n),
  ]);
}
