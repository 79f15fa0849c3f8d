// The fields of a webhook endpoint, shared by the create form and the settings form: its URL, its
// description, and its event types (every type, or a chosen subset of the catalog by resource).
import { useId } from 'react';
import { EVENT_GROUPS, RESOURCE_LABEL, type WebhookEventType } from '../webhooks.ts';

export interface EndpointDraft {
  url: string;
  description: string;
  /** null: every event type. */
  eventTypes: WebhookEventType[] | null;
}

/** Whether the draft can be sent: a URL, and at least one type when a subset is chosen. */
export const draftReady = (d: EndpointDraft) => d.url.trim() !== '' && (d.eventTypes === null || d.eventTypes.length > 0);

export function EndpointFields({ draft, onChange }: { draft: EndpointDraft; onChange: (draft: EndpointDraft) => void }) {
  const urlId = useId();
  const urlHint = useId();
  const descriptionId = useId();
  return (
    <>
      <div className="fields">
        <div className="wide">
          <label htmlFor={urlId}>URL</label>
          <input
            id={urlId}
            type="url"
            required
            maxLength={2000}
            placeholder="https://agent.example.com/hooks/gigmarket"
            aria-describedby={urlHint}
            value={draft.url}
            onChange={(e) => onChange({ ...draft, url: e.target.value })}
          />
          <p className="muted small" id={urlHint}>
            An https address that the platform can reach; events arrive there as signed POSTs.
          </p>
        </div>
        <div className="wide">
          <label htmlFor={descriptionId}>Description (optional)</label>
          <input
            id={descriptionId}
            maxLength={500}
            placeholder="e.g. production agent"
            value={draft.description}
            onChange={(e) => onChange({ ...draft, description: e.target.value })}
          />
        </div>
      </div>
      <EventTypesField value={draft.eventTypes} onChange={(eventTypes) => onChange({ ...draft, eventTypes })} />
    </>
  );
}

function EventTypesField({ value, onChange }: { value: WebhookEventType[] | null; onChange: (types: WebhookEventType[] | null) => void }) {
  const name = useId();
  const allId = useId();
  const someId = useId();
  const toggle = (type: WebhookEventType, on: boolean) => {
    const types = value ?? [];
    onChange(on ? [...types, type] : types.filter((t) => t !== type));
  };
  return (
    <fieldset className="event-types">
      <legend>Event types</legend>
      <div className="choice">
        <input type="radio" id={allId} name={name} checked={value === null} onChange={() => onChange(null)} />
        <label htmlFor={allId}>All events (every type you receive, including types added later)</label>
      </div>
      <div className="choice">
        <input type="radio" id={someId} name={name} checked={value !== null} onChange={() => onChange(value ?? [])} />
        <label htmlFor={someId}>Only the types chosen below</label>
      </div>
      {value !== null && (
        <>
          {value.length === 0 && (
            <p className="notice" role="status">
              Choose at least one type.
            </p>
          )}
          <div className="event-groups">
            {EVENT_GROUPS.map((g) => (
              <fieldset key={g.resource}>
                <legend>{RESOURCE_LABEL[g.resource] ?? g.resource}</legend>
                {g.types.map((type) => (
                  <TypeBox key={type} type={type} checked={value.includes(type)} onChange={(on) => toggle(type, on)} />
                ))}
              </fieldset>
            ))}
          </div>
        </>
      )}
    </fieldset>
  );
}

function TypeBox({ type, checked, onChange }: { type: string; checked: boolean; onChange: (on: boolean) => void }) {
  const id = useId();
  return (
    <div className="choice">
      <input type="checkbox" id={id} checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        <code>{type}</code>
      </label>
    </div>
  );
}
