// An OAuth client (an MCP client: a hosted assistant, an IDE agent) asks to act for the owner at
// /mcp. The owner sees who asks, for what and where they go back to, unticks what they do not
// grant, and allows or refuses; either way the browser goes back to the client.
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { answerAuthorization, readAuthorization, type AuthorizationAnswer } from '../authorize.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ErrorMessage, Loading } from '../components/States.tsx';
import { href } from '../router.ts';

export function Authorize({ uid }: { uid: string }) {
  const request = useQuery({ queryKey: ['authorization', uid], queryFn: () => readAuthorization(uid), retry: false });
  const [unticked, setUnticked] = useState<ReadonlySet<string>>(new Set());
  const answer = useMutation({
    mutationFn: (decision: AuthorizationAnswer['decision']) =>
      answerAuthorization(uid, {
        decision,
        scopes: (request.data?.scopes ?? []).map((s) => s.name).filter((name) => !unticked.has(name)),
      }),
    onSuccess: ({ redirect_to }) => window.location.assign(redirect_to),
  });
  if (request.isPending) return <Loading what="the authorization request" />;
  if (request.isError)
    return (
      <>
        <PageTitle title="Authorization request">Authorization request</PageTitle>
        <ErrorMessage error={request.error} />
        <p>
          Go back to the application that sent you here and connect again, or to the <a href={href.overview}>overview</a>.
        </p>
      </>
    );
  const { client, scopes, back_to } = request.data;
  const name = client.name ?? client.id;
  const toggle = (scope: string, ticked: boolean) =>
    setUnticked((current) => {
      const next = new Set(current);
      if (ticked) next.delete(scope);
      else next.add(scope);
      return next;
    });
  return (
    <>
      <PageTitle title="Allow access">
        <q>{name}</q> asks to act for you
      </PageTitle>
      <p className="muted">
        Client id: <code className="client-id">{client.id}</code>
        {client.uri && (
          <>
            , from <code className="client-id">{client.uri}</code>
          </>
        )}
        . After you decide, you go back to <code className="client-id">{back_to}</code>.
      </p>
      <form
        className="authorize"
        onSubmit={(e) => {
          e.preventDefault();
          answer.mutate('allow');
        }}
      >
        <fieldset disabled={answer.isPending || answer.isSuccess}>
          <legend>It would act at gigmarket's MCP endpoint as you, with what you tick:</legend>
          {scopes.map((scope) => (
            <label key={scope.name} className="choice">
              <input
                type="checkbox"
                checked={scope.name === 'read' || !unticked.has(scope.name)}
                disabled={scope.name === 'read'}
                onChange={(e) => toggle(scope.name, e.target.checked)}
              />
              <span>
                <code>{scope.name}</code>
                {scope.name === 'read' && ' (always)'}: <span className="muted">{scope.description}</span>
              </span>
            </label>
          ))}
          <p className="muted">
            It never approves a contract on its own: your approval policy applies to it as to your API keys. You can revoke it at any time
            on the <a href={href.keys}>API keys</a> page.
          </p>
          <div className="row">
            <button type="submit" className="primary">
              Allow
            </button>
            <button type="button" onClick={() => answer.mutate('deny')}>
              Refuse
            </button>
          </div>
        </fieldset>
        {answer.isError && <ErrorMessage error={answer.error} />}
      </form>
    </>
  );
}
