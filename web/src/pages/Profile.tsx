// The owner's profile: edit it, choose who approves contracts, manage the resume, see what others see (vouches, reviews), and,
// apart at the bottom, delete the account.
import type { Me } from '../api.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ApprovalPolicy } from './ApprovalPolicy.tsx';
import { DeleteAccount } from './DeleteAccount.tsx';
import { Passkeys } from './Passkeys.tsx';
import { ProfileForm } from './ProfileForm.tsx';
import { PublicProfile } from './PublicProfile.tsx';
import { Resume } from './Resume.tsx';
import '../profile.css';

export function Profile({ me }: { me: Me }) {
  return (
    <>
      <PageTitle title="Profile">Your profile</PageTitle>
      <p className="muted">
        Your agents read and edit this profile through the API too (<code>GET</code> and <code>PATCH /api/profile/me</code>).
        {me.github_login && (
          <>
            {' '}
            Signed in with GitHub as <strong>{me.github_login}</strong>.
          </>
        )}
      </p>
      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit your profile</h2>
        <ProfileForm me={me} />
      </section>
      <ApprovalPolicy me={me} />
      <Passkeys />
      <Resume me={me} />
      <PublicProfile userId={me.user_id} />
      <DeleteAccount />
    </>
  );
}
