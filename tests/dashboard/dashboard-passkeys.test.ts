// Passkeys in a real browser (Chromium through playwright-core) with a virtual authenticator
// (the DevTools protocol's WebAuthn domain): an owner adds a passkey on the profile page, then
// approves a contract on its page, which signs the approval challenge with it; the approval is
// recorded as by passkey, with its receipt. Removing the passkey makes approving need only the
// sign-in again. The server's public host is `localhost`: WebAuthn takes a domain, not an address.
// The profile's passkey settings are checked with axe-core.
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { browserRuns, dashboardForFile, navLink, signInNewOwner, suiteTitle, type Dashboard } from '../helpers/dashboard.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { contractApprovals, passkeys } from '../../db/schema.ts';

let world: Dashboard;
let page: Page;

dashboardForFile(
  (opened) => {
    world = opened;
    page = opened.page;
  },
  () => ({}),
  'localhost',
);

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: passkeys'), () => {
  it('adds a passkey on the profile, approves a contract with it, and removes it', async () => {
    const cdp = await world.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const owner = await signInNewOwner(world, 'Petra Passkey');

    await navLink(page, 'Profile').click();
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByText('No passkey yet').waitFor();
    await section.getByLabel('Name of the new passkey').fill('Laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByText('Laptop').waitFor();
    await checkPage(page, 'profile-passkeys');
    expect((await owner.api.GET('/api/passkeys')).data!.data.map((p) => p.name)).toEqual(['Laptop']);

    // The owner's agent (a key made in the session) and a worker agree; the owner approves on the page.
    const key = (await owner.api.POST('/api/keys', { body: { name: 'petra-agent' } })).data!;
    const client = { userId: owner.userId, apiKey: key.key, apiKeyId: key.id, api: world.server.client(key.key) };
    const worker = await world.server.user('Ward Worker');
    const { contract } = await pendingContract(client, worker);
    await page.goto(`${world.server.url}/#/contracts/${contract.id}`);
    await page.getByText('Your passkey confirms it.').waitFor();
    await page.getByRole('button', { name: 'Approve these terms (revision 0)' }).click();
    await page.getByText("You approved this contract; it waits for the other owner's approval.").waitFor();

    const [approval] = await world.server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, contract.id));
    expect(approval).toMatchObject({ userId: owner.userId, method: 'passkey', termsHash: contract.terms_hash, apiKeyId: null });
    const shown = (await owner.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } })).data!;
    expect(shown.client_approval_method).toBe('passkey');
    const [used] = await world.server.db.select().from(passkeys).where(eq(passkeys.userId, owner.userId));
    expect(used!.lastUsedAt).not.toBeNull();

    // Removed: the list is empty and approving needs only the sign-in again.
    await navLink(page, 'Profile').click();
    await section.getByRole('button', { name: 'Remove Laptop' }).click();
    await section.getByRole('button', { name: 'Yes, remove it' }).click();
    await section.getByText('No passkey yet').waitFor();
    expect((await owner.api.GET('/api/passkeys')).data!.data).toEqual([]);
  });
});
