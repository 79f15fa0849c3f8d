// An owner whose approval policy is owner_confirms, in a real browser (Chromium through
// playwright-core): their agent's MCP client asks to approve, the tool sends a URL elicitation,
// the owner opens that page signed in, reads the terms and approves there; the tool then answers
// with the approval, made in the owner's session. Another signed-in user opening the same link
// sees no contract and cannot approve it. The page is checked with axe-core.
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { browserRuns, dashboardForFile, devSignInNew, suiteTitle, viewerContext, type Dashboard } from '../helpers/dashboard.ts';
import { signInNewOwner } from '../helpers/dashboard.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { connectMcp, structured } from '../helpers/mcp.ts';
import { contractApprovals } from '../../db/schema.ts';

let world: Dashboard;
let page: Page;

dashboardForFile((opened) => {
  world = opened;
  page = opened.page;
});

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: the owner confirms'), () => {
  it("an agent's URL elicitation leads the owner to the contract's page, where they approve; the tool answers with it", async () => {
    const owner = await signInNewOwner(world, 'Olivia Owner');
    expect((await owner.api.PATCH('/api/profile/me', { body: { approval_policy: 'owner_confirms' } })).response.status).toBe(200);
    const key = (await owner.api.POST('/api/keys', { body: { name: 'olivia-agent' } })).data!;
    const client = { userId: owner.userId, apiKey: key.key, apiKeyId: key.id, api: world.server.client(key.key) };
    const worker = await world.server.user('Wendy Worker');
    const { contract } = await pendingContract(client, worker, [{ title: 'Logo "final" <b>v2</b>', amount_cents: 50_000 }]);

    const opened: string[] = [];
    const mcp = await connectMcp(
      world.server.url,
      'http',
      key.key,
      async (params) => {
        const url = (params as { url: string }).url;
        opened.push(url);
        // The owner opens the link in their browser, reads the terms and approves.
        await page.goto(url);
        await page.getByTestId('terms').getByText('$80.00 per hour').waitFor();
        // The other party's text is a quotation on the page, as text, never markup.
        await page.locator('q.quoted', { hasText: 'Logo "final" <b>v2</b>' }).waitFor();
        await checkPage(page, 'contract-owner-confirms');
        await page.getByRole('button', { name: 'Approve these terms (revision 0)' }).click();
        await page.getByText("You approved this contract; it waits for the other owner's approval.").waitFor();
        return { action: 'accept' };
      },
      ['url'],
    );
    try {
      const result = await mcp.callTool({ name: 'approveContract', arguments: { id: contract.id } });
      expect(structured(result)).toMatchObject({ approved: true, contract: { id: contract.id, client_approval_method: 'session' } });
    } finally {
      await mcp.close();
    }
    expect(opened).toEqual([`${world.server.url}/#/contracts/${contract.id}`]);
    const rows = await world.server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, contract.id));
    expect(rows.map((r) => [r.userId, r.method, r.termsHash])).toEqual([[owner.userId, 'session', contract.terms_hash]]);

    // Someone else, signed in, opening the same link: no contract, nothing to approve.
    const otherContext = await viewerContext(world.browser);
    try {
      const other = await otherContext.newPage();
      await other.goto(`${world.server.url}/`);
      await devSignInNew(other, 'Mallory Other');
      await other.goto(opened[0]!);
      await other
        .getByText(/not found/i)
        .first()
        .waitFor();
      expect(await other.getByRole('button', { name: /Approve these terms/ }).count()).toBe(0);
    } finally {
      await otherContext.close();
    }
  });
});
