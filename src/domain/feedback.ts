// Discovery feedback: what a user may say about a gig they were shown.
export const FEEDBACK_SIGNALS = ['up', 'down', 'hide'] as const;
export type FeedbackSignal = (typeof FEEDBACK_SIGNALS)[number];
