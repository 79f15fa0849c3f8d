// The dashboard's profile page in a real browser (Chromium through playwright-core): an owner signs
// in with the dev sign-in and edits every field PATCH /api/profile/me takes (the API then holds
// them); an invalid email is refused with the API's message beside the field and nothing changes.
// A real PDF is uploaded, listed and downloaded; a text file is refused with the API's 415
// message, a file over 5 MB with the 413 one; the resume is deleted. Another user vouches for the
// owner and a client reviews them after a completed contract: both show under "What others see".
// Deleting the account is refused while that contract's payout is owed (409, in the API's words);
// a second owner deletes theirs in the danger zone and is signed out. Each page is checked
// with axe-core and saved in test-results/dashboard/.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import {
  browserRuns,
  dashboardForFile,
  devSignInNew,
  local,
  navLink,
  signInNewOwner,
  suiteTitle,
  type Dashboard,
  type SignedInOwner,
} from '../helpers/dashboard.ts';
import { oversizedFile, pdfFile, textFile } from '../helpers/files.ts';
import { completedSandboxContract } from '../helpers/lifecycle.ts';
import { SESSION_COOKIE, cookieClient } from '../helpers/session.ts';

let world: Dashboard;
let page: Page;

dashboardForFile((opened) => {
  world = opened;
  page = opened.page;
});

const nav = (name: string) => navLink(page, name);
const openProfile = async () => {
  await nav('Profile').click();
  await page.getByRole('heading', { name: 'Your profile', level: 1 }).waitFor();
};

describe.skipIf(!browserRuns)(suiteTitle('the owners dashboard: profile'), () => {
  let owner: SignedInOwner;
  const me = async () => (await owner.api.GET('/api/profile/me')).data!;

  it('shows the profile with its empty resume, vouches and reviews', async () => {
    owner = await signInNewOwner(world, 'Paula Profile');
    await openProfile();
    expect(new URL(page.url()).hash).toBe('#/profile');
    expect(await page.getByLabel('Display name').inputValue()).toBe('Paula Profile');
    await page.getByText('No resume uploaded yet.').waitFor();
    await page.getByText('Nobody has vouched for you yet.', { exact: false }).waitFor();
    await page.getByText('No published reviews yet.', { exact: false }).waitFor();
    await expect.poll(() => page.getByTestId('public-profile').innerText()).toMatch(/Vouches\s+0 vouches/);
    await checkPage(page, 'profile');
  });

  it('saves every field PATCH /api/profile/me takes; the API then holds them', async () => {
    await page.getByLabel('Display name').fill('Paula P. Profile');
    await page.getByLabel('Bio').fill('Technical writer.\n<b>Not bold</b>, just text.');
    await page.getByLabel('Skills').fill('Rust,  Technical Writing , rust');
    await page.getByLabel('Portfolio website').fill('https://paula.example');
    await page.getByLabel('Contact details').fill('Signal: +1 555 0100');
    await page.getByLabel('Email').fill('paula@example.com');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile is saved.').waitFor();
    expect(await me()).toMatchObject({
      display_name: 'Paula P. Profile',
      bio: 'Technical writer.\n<b>Not bold</b>, just text.',
      skills: ['rust', 'technical writing'],
      portfolio_website_url: 'https://paula.example',
      contact_details: 'Signal: +1 555 0100',
      email: 'paula@example.com',
    });
    // The form shows what the API stored (skills lowercased, deduplicated); the header the new name.
    expect(await page.getByLabel('Skills').inputValue()).toBe('rust, technical writing');
    await page.getByText('Signed in as').getByText('Paula P. Profile').waitFor();
    await page.getByTestId('public-profile').getByText('rust, technical writing').waitFor();
    expect(await page.getByRole('button', { name: 'Save profile' }).isDisabled()).toBe(true); // nothing left to save

    // Emptying an optional field removes it.
    await page.getByLabel('Contact details').fill('');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Your profile is saved.').waitFor();
    expect((await me()).contact_details).toBeNull();
  });

  it('chooses who approves contracts: only the owner (recommended), then the agents again; the API then holds it', async () => {
    const policy = page.getByRole('region', { name: 'Who approves contracts for you' });
    const mine = policy.getByRole('radio', { name: /Only I approve \(recommended\)/ });
    const agents = policy.getByRole('radio', { name: /My agents may approve for me/ });
    expect(await agents.isChecked()).toBe(true); // the API's default
    // A click, then the state as it settles: the radios follow the saving request, which on a busy
    // machine may render a moment after the click (locator.check() would judge it at once).
    const choose = async (radio: typeof mine, policy: string) => {
      await radio.click();
      await expect.poll(async () => (await me()).approval_policy).toBe(policy);
      await expect.poll(() => radio.isChecked()).toBe(true);
    };
    await choose(mine, 'owner_confirms');
    await checkPage(page, 'profile-approval-policy');
    await choose(agents, 'keys_may_approve');
    await choose(mine, 'owner_confirms');
  });

  it("refuses an invalid email with the API's message beside the field, and changes nothing", async () => {
    const refused = await owner.api.PATCH('/api/profile/me', { body: { email: 'not an address' } });
    const issue = refused.error!.error.issues.find((i) => i.path === 'body.email')!;
    expect(issue.message.length).toBeGreaterThan(0);

    await page.getByLabel('Display name').fill('Should Not Stick');
    await page.getByLabel('Email').fill('not an address');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByRole('alert').getByText('400 VALIDATION_FAILED', { exact: false }).waitFor();
    const email = page.getByLabel('Email');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    // The field's description starts with the API's issue for it.
    const description = () =>
      email.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby')!.split(' ')[0]!)?.textContent);
    await expect.poll(description).toBe(issue.message);
    expect(await page.getByLabel('Display name').getAttribute('aria-invalid')).toBeNull();
    expect(await me()).toMatchObject({ display_name: 'Paula P. Profile', email: 'paula@example.com' });
    await checkPage(page, 'profile-invalid');

    await page.getByLabel('Display name').fill('Paula P. Profile');
    await page.getByLabel('Email').fill('paula@example.com');
    expect(await page.getByRole('button', { name: 'Save profile' }).isDisabled()).toBe(true);
  });

  it('uploads a PDF resume, lists it with a link that downloads it, refuses other files with the API’s words, and deletes it', async () => {
    const pdf = pdfFile('Paula P. Profile');
    await page.getByLabel('Upload a file').setInputFiles({ name: 'resume.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Upload resume' }).click();
    await page.getByText('Your resume is uploaded.').waitFor();
    const resumeUrl = `${world.server.url}/api/profile/${owner.userId}/resume`;
    expect((await me()).resume_url).toBe(resumeUrl);
    const link = page.getByTestId('resume').getByRole('link', { name: 'Download your resume' });
    expect(await link.getAttribute('href')).toBe(resumeUrl);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('resume.pdf');
    expect(Buffer.compare(await readFile((await download.path())!), pdf)).toBe(0);
    await checkPage(page, 'profile-resume');

    // A text file named resume.pdf: 415, in the API's words; the PDF stays.
    await page.getByLabel('Replace it with a file').setInputFiles({ name: 'resume.pdf', mimeType: 'application/pdf', buffer: textFile() });
    await page.getByRole('button', { name: 'Replace resume' }).click();
    const refusal = page.getByRole('region', { name: 'Resume' }).getByRole('alert');
    await refusal.getByText('415 UNSUPPORTED_MEDIA_TYPE', { exact: false }).waitFor();
    expect(await refusal.innerText()).toMatch(/a file must be a PDF or a PNG, JPEG or WebP image of at most 5 MB/);
    expect((await me()).resume_url).toBe(resumeUrl);

    // Over 5 MB: the API's 413 (or, when the connection is cut before the browser reads it, the size).
    await page.getByLabel('Replace it with a file').setInputFiles({
      name: 'big.pdf',
      mimeType: 'application/pdf',
      buffer: oversizedFile(5_242_881),
    });
    await page.getByRole('button', { name: 'Replace resume' }).click();
    await expect
      .poll(() => refusal.innerText())
      .toMatch(/413 PAYLOAD_TOO_LARGE.*at most 5242880 bytes|closed the connection: the file is 5\.0 MB, over the 5 MB/);
    expect((await me()).resume_url).toBe(resumeUrl);

    await page.getByRole('button', { name: 'Delete resume' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByText('No resume uploaded yet.').waitFor();
    expect((await me()).resume_url).toBeNull();
  });

  it('shows who vouched for the owner and when, and the reviews they received', async () => {
    const victor = await world.server.user('Victor Voucher');
    const vouch = await victor.api.POST('/api/vouches', { body: { vouched_user_id: owner.userId } });
    expect(vouch.response.status).toBe(200);

    // A client reviews the owner (the worker) after a completed contract; the owner's review of
    // them publishes both.
    const carla = await world.server.user('Carla Client');
    const ownerAsWorker = { userId: owner.userId, apiKey: '', apiKeyId: '', api: owner.api };
    const { contract } = await completedSandboxContract(carla, ownerAsWorker);
    const path = { id: contract.id };
    for (const [author, body] of [
      [carla, { rating: 5, text: 'Clear <docs>, on time.' }],
      [ownerAsWorker, { rating: 4, text: 'Quick answers.' }],
    ] as const)
      expect((await author.api.POST('/api/contracts/{id}/reviews', { params: { path }, body })).response.status).toBe(201);
    const { data: reviews } = await owner.api.GET('/api/profile/{userId}/reviews', { params: { path: { userId: owner.userId } } });
    const review = reviews!.data[0]!;

    await page.reload();
    const vouches = page.getByTestId('vouches');
    await expect.poll(() => vouches.innerText()).toBe(`Victor Voucher, ${local(vouch.data!.vouched_at)}`);
    await expect.poll(() => page.getByTestId('public-profile').innerText()).toMatch(/Vouches\s+1 vouch\s+Reviews\s+1 review, 5 of 5/);
    const listed = page.getByTestId('reviews').getByRole('listitem');
    await expect
      .poll(async () => (await listed.innerText()).split(/\n+/))
      .toEqual([
        '5 of 5 from Carla Client as your client, for “Build a Rust CLI”',
        'Clear <docs>, on time.', // text, never markup
        `Written ${local(review.created_at)}, published ${local(review.published_at)}`,
      ]);
    await checkPage(page, 'profile-vouched');
  });

  it('fits a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByRole('heading', { name: 'Your profile', level: 1 }).waitFor();
    await expect.poll(() => page.getByText(/^Loading /).count()).toBe(0);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await checkPage(page, 'profile-phone');
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it("refuses the deletion while a contract's payout is owed, naming it in the API's words; nothing changes", async () => {
    // The contract the review came from is completed, but its released milestone is not paid out yet.
    const { data: contracts } = await owner.api.GET('/api/contracts', { params: { query: { status: 'completed' } } });
    const contractId = contracts!.data[0]!.id;
    const zone = page.getByRole('region', { name: 'Danger zone: delete your account' });
    await zone.getByRole('button', { name: 'Delete my account…' }).click();
    await zone.getByRole('button', { name: 'Yes, delete my account' }).click();
    const refusal = zone.getByRole('alert');
    await refusal.getByText('409 CONFLICT', { exact: false }).waitFor();
    expect(await refusal.innerText()).toContain(`the account has contracts that must finish first: ${contractId} (payout owed)`);
    expect((await me()).display_name).toBe('Paula P. Profile');
  });

  it('deletes an account in the danger zone, confirmed: the owner is signed out and the session ends', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await devSignInNew(page, 'Della Delete');
    const cookie = (await world.context.cookies(world.server.url)).find((c) => c.name === SESSION_COOKIE)!;
    const della = cookieClient(world.server, `${SESSION_COOKIE}=${cookie.value}`, { origin: world.server.url });
    const { data: before } = await della.GET('/api/profile/me');
    await openProfile();
    const zone = page.getByRole('region', { name: 'Danger zone: delete your account' });
    await zone.getByText('your name becomes “Deleted user”', { exact: false }).waitFor();
    await zone.getByRole('button', { name: 'Delete my account…' }).click();
    await checkPage(page, 'profile-delete-confirm');
    await zone.getByRole('button', { name: 'Yes, delete my account' }).click();
    await expect.poll(() => page.getByTestId('deleted').innerText()).toMatch(/Your account is deleted\.[\s\S]*0 API keys revoked/);
    expect((await della.GET('/api/profile/me')).response.status).toBe(401);
    const observer = await world.server.user('Olga Observer');
    const after = await observer.api.GET('/api/profile/{userId}', { params: { path: { userId: before!.user_id } } });
    expect(after.data?.display_name).toBe('Deleted user');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: 'Dev sign-in' }).waitFor();
  });

  it('met no script error and no Content-Security-Policy violation', () => {
    expect(world.problems).toEqual([]);
  });
});
