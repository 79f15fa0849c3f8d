// The parts of every paged list page: the status filter, the table with its header, and
// "Show more" (the next page of the cursor-paged list, appended).
import { useId, type ReactNode } from 'react';

export function StatusFilter<S extends string>({
  value,
  statuses,
  label,
  onChange,
}: {
  value: S | '';
  statuses: readonly S[];
  label: (status: S) => string;
  onChange: (status: S | '') => void;
}) {
  const id = useId();
  return (
    <div className="toolbar">
      <label htmlFor={id}>Status</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as S | '')}>
        <option value="">All statuses</option>
        {statuses.map((s) => (
          <option key={s} value={s}>
            {label(s)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ListTable({
  caption,
  columns,
  testId,
  children,
}: {
  caption: string;
  columns: string[];
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function ShowMore({ list }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  if (!list.hasNextPage) return null;
  return (
    <button type="button" className="secondary" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
      {list.isFetchingNextPage ? 'Loading…' : 'Show more'}
    </button>
  );
}
