// The built-in notification channels (docs/architecture.md §6): the in-app inbox and email. The
// relay hands each batch of written events to `notificationSubscriber`, which, in the relay's
// transaction, writes an inbox message and enqueues an email job for each user of each event's
// audience whose channel wants that type. Approval reminders come from a job of their own.
import type { Actor } from '../actor.ts';
import { v5 as uuidv5 } from 'uuid';
import type { Context } from '../context.ts';
import type { Executor, Tx } from '../../db/client.ts';
import type { EventRow } from '../../db/repositories/events.ts';
import * as repo from '../../db/repositories/notifications.ts';
import { getContractForParty, listMilestones } from '../../db/repositories/contracts.ts';
import { getUser } from '../../db/repositories/users.ts';
import {
  DEFAULT_EVENT_TYPES,
  isNotifiable,
  NOTIFIABLE_EVENT_TYPES,
  REMINDER_PREFERENCE,
  type NotifiableEventType,
  type NotificationChannel,
} from '../domain/notifications.ts';
import { ApiError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { enqueueInTransaction, NOTIFICATION_EMAIL_QUEUE, type QueuePayloads } from '../job-system/queues.ts';
import { presentContract, type ContractView } from '../presenters/contracts.ts';
import { approvalReminderMessage, MESSAGES, type Notification } from './notification-messages.ts';
import type { EventSubscriber } from './event-relay.ts';
import { createEmailSender, EmailError, type EmailSender } from '../notifications/email.ts';
import { isoTimestamp, isoTimestampOrNull } from '../presenters/timestamps.ts';

// --- channels ---------------------------------------------------------------------------

export interface ChannelView {
  channel: NotificationChannel;
  address: string | null;
  event_types: NotifiableEventType[];
  customized: boolean;
}

/** Each user's wanted types per channel (defaults where they chose nothing). */
async function wantedTypes(db: Executor, userIds: string[]): Promise<Map<string, Record<NotificationChannel, Set<string>>>> {
  const out = new Map<string, Record<NotificationChannel, Set<string>>>();
  for (const id of userIds) out.set(id, { inbox: new Set(DEFAULT_EVENT_TYPES), email: new Set(DEFAULT_EVENT_TYPES) });
  for (const p of await repo.listPreferences(db, userIds)) out.get(p.userId)![p.channel] = new Set(p.eventTypes);
  return out;
}

const ordered = (types: Iterable<string>) => NOTIFIABLE_EVENT_TYPES.filter((t) => new Set(types).has(t));

export async function listChannels(ctx: Pick<Context, 'db' | 'config'>, actor: Actor): Promise<{ data: ChannelView[] }> {
  const user = await getUser(ctx.db, actor.userId);
  if (!user) throw new ApiError('UNAUTHENTICATED', 'the user of these credentials no longer exists');
  const prefs = await repo.listPreferences(ctx.db, [actor.userId]);
  const chosen = new Map(prefs.map((p) => [p.channel, p.eventTypes]));
  const view = (channel: NotificationChannel, address: string | null): ChannelView => ({
    channel,
    address,
    event_types: ordered(chosen.get(channel) ?? DEFAULT_EVENT_TYPES),
    customized: chosen.has(channel),
  });
  const data = [view('inbox', null)];
  if (ctx.config.email && user.email) data.push(view('email', user.email));
  return { data };
}

export async function updateChannel(
  ctx: Pick<Context, 'db' | 'config'>,
  actor: Actor,
  channel: NotificationChannel,
  eventTypes: NotifiableEventType[],
): Promise<ChannelView> {
  const current = await listChannels(ctx, actor);
  if (!current.data.some((c) => c.channel === channel)) {
    throw notFound(`notification channel ${channel} (email needs SMTP_URL on the server and an email in your profile)`);
  }
  await repo.upsertPreference(ctx.db, actor.userId, channel, ordered(eventTypes));
  const after = await listChannels(ctx, actor);
  return after.data.find((c) => c.channel === channel)!;
}

// --- the inbox --------------------------------------------------------------------------

export function presentMessage(m: repo.NotificationMessageRow) {
  return {
    id: m.id,
    type: m.type,
    title: m.title,
    body: m.body,
    link: m.link,
    read: m.readAt !== null,
    read_at: isoTimestampOrNull(m.readAt),
    created_at: isoTimestamp(m.createdAt),
  };
}

export function listMessages(ctx: Pick<Context, 'db'>, actor: Actor, q: { limit: number; beforeId?: string; unread?: boolean }) {
  return repo.listMessages(ctx.db, actor.userId, q);
}

export async function unreadCount(ctx: Pick<Context, 'db'>, actor: Actor) {
  return { unread: await repo.countUnread(ctx.db, actor.userId) };
}

export async function markRead(ctx: Pick<Context, 'db'>, actor: Actor, messageId: string) {
  const row = await repo.markRead(ctx.db, actor.userId, messageId);
  if (!row) throw notFound('message');
  return presentMessage(row);
}

export async function markAllRead(ctx: Pick<Context, 'db'>, actor: Actor) {
  return { marked: await repo.markAllRead(ctx.db, actor.userId) };
}

// --- delivery ---------------------------------------------------------------------------

/** Job ids derived from what they send, so the same message is enqueued once whatever happens. */
const JOB_NAMESPACE = '6f1d2c3a-8b7e-4f5a-9c0d-1e2f3a4b5c6d';

async function deliver(
  ctx: Pick<Context, 'config' | 'jobs'>,
  tx: Tx,
  d: {
    userId: string;
    eventId: string | null;
    type: string;
    key: string;
    notification: Notification;
    channels: Set<NotificationChannel>;
    email: string | null;
  },
): Promise<void> {
  if (d.channels.has('inbox')) {
    await repo.insertMessage(tx, {
      id: newId(),
      userId: d.userId,
      eventId: d.eventId,
      type: d.type,
      title: d.notification.title,
      body: d.notification.body,
      link: d.notification.link,
    });
  }
  if (d.channels.has('email') && ctx.config.email && d.email) {
    const payload: QueuePayloads[typeof NOTIFICATION_EMAIL_QUEUE] = {
      to: d.email,
      user_id: d.userId,
      key: d.key,
      subject: d.notification.email.subject,
      text: d.notification.email.text,
      html: d.notification.email.html,
    };
    const retryDelay = Math.max(1, Math.round(ctx.config.emailRetryDelayMs / 1000));
    await enqueueInTransaction(ctx.jobs, tx, NOTIFICATION_EMAIL_QUEUE, payload, {
      id: uuidv5(d.key, JOB_NAMESPACE),
      singletonKey: d.key,
      retryLimit: 5,
      retryDelay,
      retryBackoff: true,
      retryDelayMax: Math.max(retryDelay, 3600),
    });
  }
}

/** The contract an event is about (its data for contract events; looked up for milestone and review events). */
async function contractOf(tx: Tx, event: EventRow): Promise<ContractView | undefined> {
  if (event.resourceType === 'contract') return event.data as ContractView;
  const contractId = (event.data as { contract_id?: string }).contract_id;
  const party = event.audienceUserIds[0];
  if (!contractId || !party) return undefined;
  const row = await getContractForParty(tx, party, contractId);
  return row ? presentContract(row, await listMilestones(tx, [row.id])) : undefined;
}

/** The relay's subscriber: inbox messages and email jobs for every notifiable event of the batch. */
export function notificationSubscriber(ctx: Pick<Context, 'config' | 'jobs' | 'log'>): EventSubscriber {
  return async (tx, events) => {
    const notifiable = events.filter((e) => isNotifiable(e.type));
    if (!notifiable.length) return;
    const userIds = [...new Set(notifiable.flatMap((e) => e.audienceUserIds))];
    const [wanted, people] = await Promise.all([wantedTypes(tx, userIds), repo.emailsOf(tx, userIds)]);
    for (const event of notifiable) {
      const type = event.type as NotifiableEventType;
      // Contract, milestone and review events name a contract: its title and the other party are told.
      const aboutContract = event.resourceType === 'contract' || typeof (event.data as { contract_id?: unknown }).contract_id === 'string';
      const contract = aboutContract ? await contractOf(tx, event) : undefined;
      if (aboutContract && !contract) continue;
      const contractTitle = contract ? ((await repo.gigTitle(tx, contract.gig_id)) ?? 'your contract') : '';
      for (const userId of event.audienceUserIds) {
        const channels = new Set((['inbox', 'email'] as const).filter((c) => wanted.get(userId)?.[c].has(type)));
        if (!channels.size) continue;
        let counterparty = '';
        if (contract) {
          const otherId = userId === contract.client_user_id ? contract.worker_user_id : contract.client_user_id;
          counterparty = people.get(otherId)?.displayName ?? (await getUser(tx, otherId))?.displayName ?? 'the other party';
        }
        let notification: Notification | null;
        try {
          notification = MESSAGES[type]({
            publicUrl: ctx.config.publicUrl,
            data: event.data,
            recipientId: userId,
            contractTitle,
            counterparty,
            contract,
            actorUserId: event.actorUserId,
          });
        } catch (err) {
          // An event the table cannot render must not hold up the outbox (every later event waits
          // behind a batch that fails): this one notification is lost, loudly.
          ctx.log.error({ err, eventId: event.id, type, userId }, 'notification not rendered: skipped');
          continue;
        }
        if (!notification) continue;
        await deliver(ctx, tx, {
          userId,
          eventId: event.id,
          type,
          key: `event:${event.id}:${userId}`,
          notification,
          channels,
          email: people.get(userId)?.email ?? null,
        });
      }
    }
  };
}

// --- approval reminders -------------------------------------------------------------------

/** The inbox type of an approval reminder (not an event of the catalog: the job writes it). */
export const REMINDER_TYPE = 'approval_reminder';

/**
 * Reminds each owner who has not approved a contract yet, at each offset of APPROVAL_REMINDERS
 * before its deadline: once per contract, revision, owner and offset. When several offsets have
 * passed at once (a short TTL, a late run), one reminder goes out (the nearest) and the others
 * count as sent. Returns how many reminders went out.
 */
export async function sendApprovalReminders(ctx: Pick<Context, 'db' | 'config' | 'jobs'>, now = new Date()): Promise<number> {
  const offsets = ctx.config.approvalRemindersMs;
  if (!offsets.length) return 0;
  const due = await repo.contractsNearingDeadline(ctx.db, now, offsets[0]!, 500);
  let sent = 0;
  for (const c of due) {
    sent += await ctx.db.transaction(async (tx) => {
      const deadline = c.approvalDeadline!;
      const msLeft = deadline.getTime() - now.getTime();
      const passed = offsets.filter((o) => msLeft <= o).map((o) => Math.round(o / 1000));
      const waiting = [c.clientApprovedAt ? undefined : c.clientUserId, c.workerApprovedAt ? undefined : c.workerUserId].filter(
        (u): u is string => Boolean(u),
      );
      const [wanted, people] = await Promise.all([wantedTypes(tx, waiting), repo.emailsOf(tx, waiting)]);
      const contractTitle = (await repo.gigTitle(tx, c.gigId)) ?? 'your contract';
      let count = 0;
      for (const userId of waiting) {
        const claimed = await repo.claimReminders(tx, { contractId: c.id, revisionCount: c.revisionCount, userId, offsetsSeconds: passed });
        if (!claimed.length) continue;
        const channels = new Set((['inbox', 'email'] as const).filter((ch) => wanted.get(userId)?.[ch].has(REMINDER_PREFERENCE)));
        if (!channels.size) continue;
        const nearest = Math.min(...claimed);
        await deliver(ctx, tx, {
          userId,
          eventId: null,
          type: REMINDER_TYPE,
          key: `reminder:${c.id}:${c.revisionCount}:${userId}:${nearest}`,
          notification: approvalReminderMessage({ publicUrl: ctx.config.publicUrl, contractId: c.id, contractTitle, deadline, msLeft }),
          channels,
          email: people.get(userId)?.email ?? null,
        });
        count++;
      }
      return count;
    });
  }
  return sent;
}

// --- sending email ---------------------------------------------------------------------------

/**
 * Sends one notification email. A retryable failure (no connection, a 4xx reply) throws, so that
 * pg-boss tries again later; a permanent one (a 5xx reply, a message that cannot be sent) is
 * logged and the job ends: sending it again would get the same answer.
 */
export async function sendNotificationEmail(
  ctx: Pick<Context, 'log'>,
  sender: EmailSender,
  job: QueuePayloads[typeof NOTIFICATION_EMAIL_QUEUE],
  attempt: { retryCount: number; last: boolean },
): Promise<'sent' | 'refused'> {
  try {
    await sender.send({ to: job.to, subject: job.subject, text: job.text, html: job.html });
    return 'sent';
  } catch (err) {
    if (err instanceof EmailError && !err.retryable) {
      ctx.log.warn({ err, key: job.key, userId: job.user_id }, 'notification email refused for good: not retried');
      return 'refused';
    }
    if (attempt.last) ctx.log.error({ err, key: job.key, userId: job.user_id }, 'notification email failed on every retry');
    throw err;
  }
}

/** The sender notification emails go out through, or undefined when email is off (no SMTP_URL). */
export function notificationEmailSender(ctx: Pick<Context, 'config'>): EmailSender | undefined {
  return createEmailSender(ctx.config);
}
