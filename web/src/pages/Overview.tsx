// Overview: what awaits the owner, most urgent first (approvals by their deadline, then identity
// checks, payments to finish, milestones to fund and to release), and unread notifications.
import { useQueries, useQuery } from '@tanstack/react-query';
import { api, contractsIn, unwrap, type Me } from '../api.ts';
import { GigTitle } from '../components/GigTitle.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { timeLeft, when } from '../format.ts';
import { useNow } from '../now.ts';
import { keys } from '../queries.ts';
import { href } from '../router.ts';
import { tasksFor, type Task } from '../tasks.ts';

const LISTS = ['pending_owner_approval', 'pending_freelancer_kyc', 'active'] as const;

export function Overview({ me }: { me: Me }) {
  const lists = useQueries({
    queries: LISTS.map((status) => ({ queryKey: keys.contractsIn(status), queryFn: () => contractsIn(status) })),
  });
  const unread = useQuery({ queryKey: keys.unread, queryFn: () => unwrap(api.GET('/api/notifications/inbox/unread-count')) });
  const failed = lists.find((q) => q.isError);
  const [pending, kyc, active] = lists.map((q) => q.data);
  const tasks = pending && kyc && active ? tasksFor(me, { pending, kyc, active }) : undefined;

  return (
    <>
      <PageTitle title="Overview">What awaits you</PageTitle>
      <p className="muted">Your agents draft; you decide. Contracts bind only once both owners approve them.</p>
      <section aria-labelledby="unread-heading" className="summary">
        <h2 id="unread-heading">Notifications</h2>
        {unread.isPending && <Loading what="notifications" />}
        {unread.isError && <ErrorMessage error={unread.error} onRetry={() => void unread.refetch()} />}
        {unread.data && (
          <p data-testid="unread">
            {unread.data.unread === 0
              ? 'No unread notifications.'
              : `${unread.data.unread} unread notification${unread.data.unread === 1 ? '' : 's'}.`}
          </p>
        )}
      </section>
      <section aria-labelledby="tasks-heading">
        <h2 id="tasks-heading">To do</h2>
        {failed && <ErrorMessage error={failed.error} onRetry={() => lists.forEach((q) => void q.refetch())} />}
        {!failed && !tasks && <Loading what="your contracts" />}
        {tasks && tasks.length === 0 && (
          <Empty>
            Nothing awaits you. When your agents agree a deal, its contract appears here for your approval; see all of them under{' '}
            <a href={href.contracts}>Contracts</a>.
          </Empty>
        )}
        {tasks && tasks.length > 0 && (
          <ol className="tasks">
            {tasks.map((task) => (
              <TaskItem key={task.key} task={task} />
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

const KIND_LABEL: Record<Task['kind'], string> = {
  approve: 'Approval',
  kyc: 'Identity checks',
  pay: 'Payment',
  fund: 'Funding',
  release: 'Release',
};

function TaskItem({ task }: { task: Task }) {
  const now = useNow();
  const left = task.deadline ? timeLeft(task.deadline, now) : undefined;
  return (
    <li className={`task task-${task.kind}`}>
      <span className="tag">{KIND_LABEL[task.kind]}</span>
      <a className="task-link" href={href.contract(task.contract.id)}>
        <GigTitle gigId={task.contract.gig_id} />
      </a>
      <span>{task.what}</span>
      {task.deadline && (
        <span className={left === 'expired' ? 'deadline expired' : 'deadline'}>
          {left === 'expired' ? 'Expired' : left} (expires <Time iso={task.deadline} format={when} />)
        </span>
      )}
    </li>
  );
}
