// The notification emails as rendered: wording, amounts, UTC dates, links, and escaping (every
// interpolated value verbatim in the text, escaped in the HTML).
import { describe, expect, it } from 'vitest';
import {
  approvalReminder,
  type ContractTerms,
  contractAwaitingApproval,
  contractExpired,
  escapeHtml,
  formatMoney,
  formatUtc,
  identityChecksNeeded,
  type RenderedEmail,
} from '../../src/notifications/templates.ts';
import { type MilestoneNotice, milestoneFunded, milestonePaid, milestoneReleased, payoutFailed } from '../../src/notifications/money.ts';

const SCRIPT = '<script>alert("x")</script>';
const LINK = 'https://gigs.example.com/contracts/0190a5b3?tab=terms&from=email';
const DEADLINE = new Date('2026-12-03T14:05:00Z');

const terms: ContractTerms = {
  title: 'Rust log parser',
  counterparty: 'Bob & Partners',
  counterpartyRole: 'worker',
  currency: 'EUR',
  rateCents: 8050,
  hoursPerWeek: 20,
  startDate: '2026-12-01',
  payoutDelayDays: 5,
  milestones: [
    { title: `Parser ${SCRIPT}`, amountCents: 120000, dueDate: '2026-12-15' },
    { title: 'Docs', amountCents: 30000, dueDate: null },
  ],
};

const milestone: MilestoneNotice = {
  role: 'worker',
  contractTitle: 'Rust log parser',
  milestoneTitle: `Parser ${SCRIPT}`,
  amountCents: 120000,
  refundedCents: 0,
  currency: 'USD',
  link: LINK,
};
const QUOTED = `Contract:\n  "Rust log parser"\nMilestone:\n  "Parser ${SCRIPT}"`;

/** What every email must hold to: the link in both parts, HTML escaped, the subject on one line. */
function wellFormed(email: RenderedEmail) {
  expect(email.subject).not.toMatch(/[\r\n]/);
  expect(email.text).toContain(LINK);
  expect(email.html).toContain(`href="${LINK.replace('&', '&amp;')}"`);
  expect(email.html).not.toContain('<script>');
  expect(email.html).toMatch(/^<!doctype html>/);
}

describe('formatting', () => {
  it('amounts from integer minor units, in their currency', () => {
    expect(formatMoney(120000, 'USD')).toBe('$1,200.00');
    expect(formatMoney(8050, 'EUR')).toBe('€80.50');
    expect(formatMoney(5, 'GBP')).toBe('£0.05');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
    expect(formatMoney(500000, 'JPY')).toBe('¥500,000'); // no minor unit
    expect(formatMoney(12345, 'KWD')).toBe('KWD 12.345'); // three digits
    expect(formatMoney(150, 'USDC')).toBe('1.50 USDC'); // not a currency Intl knows
    expect(() => formatMoney(12.5, 'USD')).toThrow(/integer number of cents/);
  });

  it('dates in UTC, whatever the reader', () => {
    expect(formatUtc(DEADLINE)).toBe('Thu, 3 Dec 2026, 14:05 UTC');
    expect(formatUtc(new Date('2027-01-01T00:00:00+02:00'))).toBe('Thu, 31 Dec 2026, 22:00 UTC');
    expect(() => formatUtc(new Date('nope'))).toThrow(/invalid date/);
  });

  it('escapes what HTML would read as markup', () => {
    expect(escapeHtml(`a & b <i> "q" 'r'`)).toBe('a &amp; b &lt;i&gt; &quot;q&quot; &#39;r&#39;');
  });
});

describe('a contract awaits your approval', () => {
  const email = contractAwaitingApproval({ terms, approvalDeadline: DEADLINE, link: LINK });

  it('subject, terms, deadline and link; what the other party wrote quoted on lines of its own', () => {
    expect(email.subject).toBe('Approve your contract: "Rust log parser"');
    expect(email.text).toBe(
      [
        'Your agent agreed on the terms below with the worker. Nothing binds until both owners approve.',
        '',
        'Contract:',
        '  "Rust log parser"',
        'Worker:',
        '  "Bob & Partners"',
        '',
        '- Rate: €80.50 an hour, 20 hours a week',
        '- Start: 2026-12-01',
        '- Milestone 1: €1,200.00, due 2026-12-15',
        `    "Parser ${SCRIPT}"`,
        '- Milestone 2: €300.00',
        '    "Docs"',
        '- Milestones in all: €1,500.00',
        '- Payout: 5 days after each milestone is released',
        '',
        'Approve by Thu, 3 Dec 2026, 14:05 UTC, or the contract expires. Only approve terms you have read and agree to.',
        '',
        `Review the contract: ${LINK}`,
        '',
      ].join('\n'),
    );
    wellFormed(email);
  });

  it('a milestone title with <script> is escaped in the HTML and verbatim in the text', () => {
    expect(email.text).toContain(`    "Parser ${SCRIPT}"`);
    expect(email.html).toContain(
      '<li>Milestone 1: €1,200.00, due 2026-12-15<br>&quot;Parser &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;</li>',
    );
    expect(email.html).toContain('<dt>Worker:</dt><dd>&quot;Bob &amp; Partners&quot;</dd>');
    expect(email.summary).toBe(email.text.split('\n\n- Rate')[0]);
  });

  it('leaves out the terms the contract does not state', () => {
    const bare = contractAwaitingApproval({
      terms: { ...terms, rateCents: null, hoursPerWeek: null, startDate: null, payoutDelayDays: 1, milestones: [terms.milestones[1]!] },
      approvalDeadline: DEADLINE,
      link: LINK,
    });
    expect(bare.text).not.toMatch(/Rate:|Start:|in all/);
    expect(bare.text).toContain('- Milestone 1: €300.00\n    "Docs"\n- Payout: 1 day after');
  });

  it('refuses a link that is not http(s)', () => {
    expect(() => contractAwaitingApproval({ terms, approvalDeadline: DEADLINE, link: 'javascript:alert(1)' })).toThrow(/http\(s\) URL/);
  });

  it('keeps the subject, and each quote, on one line whatever the title holds', () => {
    const email = contractAwaitingApproval({
      terms: { ...terms, title: 'Two\r\nBcc: eve@evil.example', milestones: [{ title: 'A\n- Payout: 0 days', amountCents: 100 }] },
      approvalDeadline: DEADLINE,
      link: LINK,
    });
    expect(email.subject).toBe('Approve your contract: "Two Bcc: eve@evil.example"');
    expect(email.text).toContain('Contract:\n  "Two Bcc: eve@evil.example"\n');
    expect(email.text).toContain('- Milestone 1: €1.00\n    "A - Payout: 0 days"\n- Payout: 5 days');
  });
});

describe('the other moments', () => {
  it('approval deadline in N hours', () => {
    const email = approvalReminder({ contractTitle: terms.title, hoursLeft: 6, approvalDeadline: DEADLINE, link: LINK });
    expect(email.subject).toBe('6 hours left to approve "Rust log parser"');
    expect(email.text).toContain(
      'The contract below is still waiting for your approval. It expires at Thu, 3 Dec 2026, 14:05 UTC, in 6 hours.\n\nContract:\n  "Rust log parser"\n',
    );
    expect(approvalReminder({ contractTitle: 'x', hoursLeft: 1, approvalDeadline: DEADLINE, link: LINK }).subject).toBe(
      '1 hour left to approve "x"',
    );
    wellFormed(email);
  });

  it('contract expired', () => {
    const email = contractExpired({ contractTitle: SCRIPT, approvalDeadline: DEADLINE, link: LINK });
    expect(email.subject).toBe(`Contract expired: "${SCRIPT}"`);
    expect(email.text).toContain(
      `by Thu, 3 Dec 2026, 14:05 UTC, so it expired. Nothing binds and no money moved.\n\nContract:\n  "${SCRIPT}"\n`,
    );
    expect(email.html).toContain('&lt;script&gt;');
    wellFormed(email);
  });

  it('complete your identity checks', () => {
    const email = identityChecksNeeded({ contractTitle: terms.title, link: LINK });
    expect(email.subject).toBe('Complete your identity checks for "Rust log parser"');
    expect(email.text).toContain(`Complete your identity checks: ${LINK}`);
    wellFormed(email);
  });

  // Each party's wording, with and without a refund: tests/payments/money-notifications.test.ts over HTTP.
  it('milestone funded, released, paid, payout failed: the titles quoted on their own lines, escaped in the HTML', () => {
    const funded = milestoneFunded(milestone);
    expect(funded.subject).toBe(`Milestone funded: "Parser ${SCRIPT}"`);
    expect(funded.text).toBe(
      `The client funded a milestone: $1,200.00 is held for you until the client releases it.\n\n${QUOTED}\n\nSee the contract: ${LINK}\n`,
    );
    expect(funded.summary).toBe(`The client funded a milestone: $1,200.00 is held for you until the client releases it.\n\n${QUOTED}`);
    const released = milestoneReleased({ ...milestone, role: 'client', payoutDueAt: DEADLINE, byResolution: false });
    expect(released.summary).toMatch(
      /^You released a milestone: \$1,200\.00 will be paid out to the worker on Thu, 3 Dec 2026, 14:05 UTC\./,
    );
    const paid = milestonePaid({ ...milestone, refundedCents: 20000 });
    expect(paid.subject).toBe(`Paid: $1,000.00 for "Parser ${SCRIPT}"`);
    expect(paid.summary).toMatch(
      /^\$1,000\.00 for a milestone was paid out to your account\. Of its \$1,200\.00, the dispute's resolution refunded \$200\.00 to the client\./,
    );
    expect(milestonePaid({ ...milestone, role: 'client' }).subject).toBe(`Milestone paid out: "Parser ${SCRIPT}"`);
    const failed = payoutFailed(milestone);
    expect(failed.subject).toBe(`Payout failed: $1,200.00 for "Parser ${SCRIPT}"`);
    expect(failed.summary).toContain('The amount is still owed to you');
    for (const email of [funded, released, paid, failed]) {
      wellFormed(email);
      expect(email.html).toContain('<dt>Milestone:</dt><dd>&quot;Parser &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;</dd>');
    }
  });
});
