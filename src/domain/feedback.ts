// Discovery feedback: what a user may say about a gig they were shown.
export { FEEDBACK_SIGNALS, type FeedbackSignal } from '../../db/schema/column-values.ts';
