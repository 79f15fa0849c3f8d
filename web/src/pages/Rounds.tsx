// Every round of a negotiation, oldest first: who proposed it and its terms, each term and
// milestone that differs from the round before marked in words ("changed from $80.00", "added",
// "removed"), not by colour alone.
import { changesBetween, fieldChange, TERM_FIELDS, type Changes, type MilestoneChange, type Terms } from '../changes.ts';
import { ListTable } from '../components/Lists.tsx';
import { Time } from '../components/States.tsx';
import { day, money, totalCents, when } from '../format.ts';
import type { Round } from '../negotiations.ts';
import { milestoneText, TERM_LABEL, termText } from '../terms.ts';
import '../negotiations.css';

export function Rounds({ rounds, meRole }: { rounds: readonly Round[]; meRole: 'client' | 'worker' }) {
  return (
    <section aria-labelledby="rounds-heading">
      <h2 id="rounds-heading">Rounds, oldest first</h2>
      {rounds.length === 0 && <p className="empty">No terms proposed yet: either party may propose the first round.</p>}
      <ol className="rounds">
        {rounds.map((round, i) => (
          <RoundItem key={round.id} round={round} previous={rounds[i - 1]} mine={round.proposed_by === meRole} />
        ))}
      </ol>
    </section>
  );
}

function RoundItem({ round: r, previous, mine }: { round: Round; previous?: Round; mine: boolean }) {
  const changes = previous ? changesBetween(previous, r) : undefined;
  const headingId = `round-${r.number}`;
  return (
    <li className="round" aria-labelledby={headingId} data-testid={headingId}>
      <h3 id={headingId}>
        Round {r.number}: proposed by the {r.proposed_by} ({mine ? 'your side' : 'the other side'})
      </h3>
      <p className="muted small">
        <Time iso={r.created_at} format={when} />
        {changes && ` · ${summary(changes)}`}
      </p>
      <dl className="terms">
        {TERM_FIELDS.map((field) => {
          const change = changes && fieldChange(changes, field);
          return (
            <div key={field} className={change ? 'changed' : undefined}>
              <dt>{TERM_LABEL[field]}</dt>
              <dd>
                {termText(field, r[field], r.currency)}
                {change && previous && <ChangedFrom text={termText(field, change.before, previous.currency)} />}
              </dd>
            </div>
          );
        })}
        <div>
          <dt>Total</dt>
          <dd>{money(totalCents(r.milestones), r.currency)}</dd>
        </div>
      </dl>
      <RoundMilestones round={r} previous={previous} changes={changes} />
      {r.notes && (
        <div className="notes">
          <h4>Notes</h4>
          <p>{r.notes}</p>
        </div>
      )}
    </li>
  );
}

function RoundMilestones({ round: r, previous, changes }: { round: Round; previous?: Terms; changes?: Changes }) {
  const at = (position: number) =>
    changes?.milestones.find((c): c is Exclude<MilestoneChange, { kind: 'removed' }> => c.kind !== 'removed' && c.position === position);
  const removed = changes?.milestones.filter((c) => c.kind === 'removed') ?? [];
  return (
    <>
      <ListTable caption={`Milestones of round ${r.number}`} columns={['#', 'Milestone', 'Amount', 'Due']}>
        {r.milestones.map((m, i) => {
          const change = at(i + 1);
          const old = change?.kind === 'changed' ? change : undefined;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a round is never edited, so its milestones never move
            <tr key={i} className={change ? 'changed' : undefined}>
              <td>{i + 1}</td>
              <th scope="row">
                {m.title}
                {change?.kind === 'added' && (
                  <>
                    {' '}
                    <span className="change">added</span>
                  </>
                )}
                {old?.fields.includes('title') && <ChangedFrom text={`“${old.before.title}”`} />}
              </th>
              <td>
                {money(m.amount_cents, r.currency)}
                {old?.fields.includes('amount_cents') && previous && (
                  <ChangedFrom text={money(old.before.amount_cents, previous.currency)} />
                )}
              </td>
              <td>
                {m.due_date ? <time dateTime={m.due_date}>{day(m.due_date)}</time> : '—'}
                {old?.fields.includes('due_date') && <ChangedFrom text={old.before.due_date ? day(old.before.due_date) : 'none'} />}
              </td>
            </tr>
          );
        })}
      </ListTable>
      {removed.length > 0 && previous && (
        <ul className="removed">
          {removed.map((c) => (
            <li key={`removed:${c.position}`}>
              <span className="change">removed</span> milestone {c.position} of the previous round:{' '}
              {c.kind === 'removed' && milestoneText(c.before, previous.currency)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function ChangedFrom({ text }: { text: string }) {
  return (
    <>
      {' '}
      <span className="change">changed from {text}</span>
    </>
  );
}

function summary(changes: Changes): string {
  const n = changes.fields.length + changes.milestones.length;
  return n === 0 ? 'the same terms as the round before' : `${n} change${n === 1 ? '' : 's'} from the round before, marked below`;
}
