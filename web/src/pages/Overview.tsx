// Overview: what awaits the owner, most urgent first (approvals by their deadline, disputes to
// answer, identity checks, payments to finish, milestones to fund and to release, reviews to
// write), and unread notifications.
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, contractsIn, unwrap, type Me } from '../api.ts';
import { GigOfContract } from '../components/GigTitle.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { Empty, ErrorMessage, Loading, Time } from '../components/States.tsx';
import { timeLeft, when } from '../format.ts';
import { useNow } from '../now.ts';
import { useLiveDisputes } from '../disputes.ts';
import { keys, reviewKeys } from '../queries.ts';
import { href } from '../router.ts';
import { tasksFor, type ReviewDue, type Task } from '../tasks.ts';

const LISTS = ['pending_owner_approval', 'pending_freelancer_kyc', 'active'] as const;

export function Overview({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const lists = useQueries({
    queries: LISTS.map((status) => ({
      queryKey: keys.contractsIn(status),
      queryFn: async () => {
        const contracts = await contractsIn(status);
        // Each task names its contract's gig: the contracts just read need not be read again.
        for (const c of contracts) queryClient.setQueryData(keys.contract(c.id), c);
        return contracts;
      },
    })),
  });
  const disputes = useLiveDisputes();
  const reviews = useReviewsDue();
  const unread = useQuery({ queryKey: keys.unread, queryFn: () => unwrap(api.GET('/api/notifications/inbox/unread-count')) });
  const all = [...lists, disputes, reviews];
  const failed = all.find((q) => q.isError);
  const [pending, kyc, active] = lists.map((q) => q.data);
  const tasks =
    pending && kyc && active && disputes.data && reviews.data
      ? tasksFor(me, { pending, kyc, active, disputes: disputes.data, reviews: reviews.data })
      : undefined;

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
        {failed && <ErrorMessage error={failed.error} onRetry={() => all.forEach((q) => void q.refetch())} />}
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

/** The completed contracts (the latest 20) the owner may still review. */
function useReviewsDue() {
  return useQuery({
    queryKey: [...reviewKeys.all, 'due'],
    queryFn: async (): Promise<ReviewDue[]> => {
      const completed = await unwrap(api.GET('/api/contracts', { params: { query: { status: 'completed', limit: 20 } } }));
      const views = await Promise.all(
        completed.data.map((c) => unwrap(api.GET('/api/contracts/{id}/reviews', { params: { path: { id: c.id } } }))),
      );
      return views.filter((v) => v.can_review).map((v) => ({ contractId: v.contract_id, deadline: v.review_deadline }));
    },
  });
}

const KIND_LABEL: Record<Task['kind'], string> = {
  approve: 'Approval',
  dispute: 'Dispute',
  review: 'Review',
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
      <a className="task-link" href={task.link}>
        <GigOfContract contractId={task.contractId} />
      </a>
      <span>{task.what}</span>
      {task.deadline && (
        <span className={left === 'expired' ? 'deadline expired' : 'deadline'}>
          {left === 'expired' ? 'Expired' : left} ({task.kind === 'review' ? 'the review period ends' : 'expires'}{' '}
          <Time iso={task.deadline} format={when} />)
        </span>
      )}
    </li>
  );
}
