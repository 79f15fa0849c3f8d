// The notification jobs: each email (enqueued by the notification subscriber and the reminders),
// retried by pg-boss when the failure is retryable; and, every minute, the approval reminders.
import { notificationEmailSender, sendApprovalReminders, sendNotificationEmail } from '../src/services/notifications.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { APPROVAL_REMINDER_QUEUE, NOTIFICATION_EMAIL_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function notificationEmailJob(ctx: Context): JobDefinition<QueuePayloads[typeof NOTIFICATION_EMAIL_QUEUE]> | undefined {
  const sender = notificationEmailSender(ctx);
  if (!sender) return undefined;
  return {
    name: NOTIFICATION_EMAIL_QUEUE,
    // One message over one connection: each SMTP wait is bounded by SMTP_TIMEOUT_MS (connect,
    // greeting, each reply), a handful of them in a session; a minute more covers a slow server.
    expireInSeconds: Math.ceil((ctx.config.email!.timeoutMs * 6) / 1000) + 60,
    // Emails come in bursts (both owners of a contract, each event); each waits on the server.
    concurrency: 4,
    async handler(data, attempt) {
      await sendNotificationEmail(ctx, sender, data, attempt);
    },
  };
}

export function approvalReminderJob(ctx: Context): JobDefinition {
  return {
    name: APPROVAL_REMINDER_QUEUE,
    // Up to 500 contracts, a short transaction each.
    expireInSeconds: 120,
    cron: '* * * * *',
    async handler() {
      const sent = await sendApprovalReminders(ctx);
      if (sent) ctx.log.info({ sent }, 'approval reminders sent');
    },
  };
}

export function notificationJobs(ctx: Context): JobDefinition<any>[] {
  const email = notificationEmailJob(ctx);
  return [approvalReminderJob(ctx), ...(email ? [email] : [])];
}
