// The owner's profile, edited: every field PATCH /api/profile/me takes. Only the fields changed
// are sent; the API validates them (the form does not second-guess it) and each refusal is shown
// beside the field it names, with the API's message above the button.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import { ErrorMessage } from '../components/States.tsx';
import { issuesFor, profileKeys, type ProfileUpdate } from '../profile.ts';
import { keys } from '../queries.ts';

interface Draft {
  display_name: string;
  bio: string;
  skills: string;
  portfolio_website_url: string;
  contact_details: string;
  email: string;
}

const draftOf = (me: Me): Draft => ({
  display_name: me.display_name,
  bio: me.bio,
  skills: me.skills.join(', '),
  portfolio_website_url: me.portfolio_website_url ?? '',
  contact_details: me.contact_details ?? '',
  email: me.email ?? '',
});

/** An emptied optional field removes the value (`null`). */
const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

/** The fields that differ from the profile the draft started from, as PATCH takes them. */
function changesOf(draft: Draft, me: Me): ProfileUpdate {
  const changes: ProfileUpdate = {};
  if (draft.display_name !== me.display_name) changes.display_name = draft.display_name;
  if (draft.bio !== me.bio) changes.bio = draft.bio;
  const skills = draft.skills
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (skills.join('\n') !== me.skills.join('\n')) changes.skills = skills;
  for (const field of ['portfolio_website_url', 'contact_details', 'email'] as const)
    if (orNull(draft[field]) !== me[field]) changes[field] = orNull(draft[field]);
  return changes;
}

export function ProfileForm({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  // The profile the draft started from: only the fields edited since are sent, so that a change
  // made meanwhile elsewhere (an agent, another tab) is not overwritten with what the form showed.
  const [base, setBase] = useState(me);
  const [draft, setDraft] = useState(() => draftOf(me));
  const changes = changesOf(draft, base);
  const changed = Object.keys(changes).length > 0;
  if (me.updated_at !== base.updated_at && !changed) {
    // Changed elsewhere while the form is untouched: show the profile as it is now.
    setBase(me);
    setDraft(draftOf(me));
  }
  const save = useMutation({
    mutationFn: (body: ProfileUpdate) => unwrap(api.PATCH('/api/profile/me', { body })),
    onSuccess: (updated) => {
      queryClient.setQueryData(keys.me, updated);
      setBase(updated);
      setDraft(draftOf(updated));
      void queryClient.invalidateQueries({ queryKey: profileKeys.all });
    },
  });
  const field = (name: keyof Draft) => ({
    value: draft[name],
    issues: issuesFor(save.error, name).map((i) => i.message),
    onChange: (value: string) => {
      setDraft((d) => ({ ...d, [name]: value }));
      if (save.isSuccess) save.reset();
    },
  });
  return (
    <form
      className="profile-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) save.mutate(changes);
      }}
    >
      <Field label="Display name" hint="Shown to everyone: on your profile, gigs, contracts and reviews." {...field('display_name')}>
        {(props) => <input {...props} autoComplete="name" />}
      </Field>
      <Field label="Bio" hint="A few lines about you and your work; shown on your public profile." {...field('bio')}>
        {(props) => <textarea {...props} rows={5} />}
      </Field>
      <Field label="Skills" hint="Separated by commas, e.g. rust, technical writing. Stored in lower case." {...field('skills')}>
        {(props) => <input {...props} />}
      </Field>
      <Field label="Portfolio website" hint="An http or https address; leave empty to remove it." {...field('portfolio_website_url')}>
        {(props) => <input {...props} type="url" inputMode="url" autoComplete="url" />}
      </Field>
      <Field
        label="Contact details"
        hint="Private: the other party of a negotiation sees them only once you share them there. Leave empty to remove them."
        {...field('contact_details')}
      >
        {(props) => <input {...props} />}
      </Field>
      <Field
        label="Email"
        hint="Private: only you see it. Notification emails go here, when the server sends email. Leave empty to remove it."
        {...field('email')}
      >
        {(props) => <input {...props} type="email" autoComplete="email" />}
      </Field>
      {save.isError && <ErrorMessage error={save.error} />}
      {save.isSuccess && !changed && (
        <p className="ok" role="status">
          Your profile is saved.
        </p>
      )}
      <button type="submit" className="primary" disabled={save.isPending || !changed}>
        {save.isPending ? 'Saving…' : 'Save profile'}
      </button>
    </form>
  );
}

interface InputProps {
  id: string;
  value: string;
  'aria-describedby': string;
  'aria-invalid': boolean | undefined;
  onChange: (e: { target: { value: string } }) => void;
}

/** A labelled input with its hint and the API's issues for it, both read out with the field. */
function Field({
  label,
  hint,
  value,
  issues,
  onChange,
  children,
}: {
  label: string;
  hint: string;
  value: string;
  issues: string[];
  onChange: (value: string) => void;
  children: (props: InputProps) => ReactNode;
}) {
  const id = useId();
  const invalid = issues.length > 0;
  return (
    <div className={invalid ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        value,
        'aria-describedby': invalid ? `${id}-issues ${id}-hint` : `${id}-hint`,
        'aria-invalid': invalid || undefined,
        onChange: (e) => onChange(e.target.value),
      })}
      <p id={`${id}-hint`} className="muted small hint">
        {hint}
      </p>
      {invalid && (
        <ul id={`${id}-issues`} className="field-issues">
          {issues.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
