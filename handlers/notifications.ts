// The built-in notification channels and the inbox. The rules live in src/services/notifications.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { DEFAULT_LIMIT, decodeCursor, page } from '../src/http/pagination.ts';
import * as notifications from '../src/services/notifications.ts';

export function notificationHandlers(): Handlers<
  | 'listNotificationChannels'
  | 'updateNotificationChannel'
  | 'listInboxMessages'
  | 'getInboxUnreadCount'
  | 'markInboxMessageRead'
  | 'markAllInboxMessagesRead'
> {
  return {
    listNotificationChannels: (request, _reply, { ctx }) => notifications.listChannels(ctx, actorOf(request)),

    updateNotificationChannel: (request, _reply, { ctx }) =>
      notifications.updateChannel(ctx, actorOf(request), request.params.channel, request.body.event_types),

    async listInboxMessages(request, _reply, { ctx }) {
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const rows = await notifications.listMessages(ctx, actorOf(request), {
        limit,
        beforeId: decodeCursor(q.cursor),
        unread: q.unread === true,
      });
      return page(rows, limit, notifications.presentMessage);
    },

    getInboxUnreadCount: (request, _reply, { ctx }) => notifications.unreadCount(ctx, actorOf(request)),

    markInboxMessageRead: (request, _reply, { ctx }) => notifications.markRead(ctx, actorOf(request), request.params.id),

    markAllInboxMessagesRead: (request, _reply, { ctx }) => notifications.markAllRead(ctx, actorOf(request)),
  };
}
