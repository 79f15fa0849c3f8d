// What the schema's columns may hold: the lists of values and the bounds that its CHECK
// constraints enforce and that type its columns, and the shapes of its JSON columns. Each is
// defined here once: the schema builds its constraints from it, and src/domain/ re-exports it
// beside the rules about it (docs/architecture.md §1). A leaf: no imports, no database.

// Gigs and applications (src/domain/gig.ts, src/domain/application.ts).
export const GIG_STATUSES = ['draft', 'open', 'paused', 'closed'] as const;
export type GigStatus = (typeof GIG_STATUSES)[number];
export const COMPENSATION_TYPES = ['fixed', 'hourly', 'bounty', 'unknown'] as const;
export type CompensationType = (typeof COMPENSATION_TYPES)[number];
export const APPLICATION_STATUSES = ['submitted', 'shortlisted', 'rejected', 'withdrawn'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
export const APPLICATION_ORIGINS = ['application', 'invitation'] as const;
export type ApplicationOrigin = (typeof APPLICATION_ORIGINS)[number];

// Negotiations, contracts and milestones (src/domain/negotiation.ts, contract.ts, milestone.ts).
export const NEGOTIATION_STATUSES = ['open', 'agreed', 'cancelled'] as const;
export type NegotiationStatus = (typeof NEGOTIATION_STATUSES)[number];
export const PARTY_ROLES = ['client', 'worker'] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];
export const CONTRACT_STATUSES = [
  'pending_owner_approval',
  'pending_freelancer_kyc',
  'active',
  'completed',
  'disputed',
  'cancelled',
  'expired',
  'negotiation',
] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
export const MILESTONE_STATUSES = ['pending', 'funding', 'funded', 'released', 'paid', 'refunded'] as const;
export type MilestoneStatus = (typeof MILESTONE_STATUSES)[number];
/** How an owner's approval was given: by an API key, in a signed-in browser session, or there with a passkey. */
export const APPROVAL_METHODS = ['api_key', 'session', 'passkey'] as const;
export type ApprovalMethod = (typeof APPROVAL_METHODS)[number];
/** Whose word approves a contract for an owner: any of their API keys (the default), or only the owner, signed in. */
export const APPROVAL_POLICIES = ['keys_may_approve', 'owner_confirms'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
/** What a WebAuthn challenge is for: registering a passkey, or approving a contract with one. */
export const WEBAUTHN_PURPOSES = ['register', 'approve'] as const;
export type WebauthnPurpose = (typeof WEBAUTHN_PURPOSES)[number];
/** How a browser reaches an authenticator (WebAuthn's AuthenticatorTransport). */
export const WEBAUTHN_TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;
export type WebauthnTransport = (typeof WEBAUTHN_TRANSPORTS)[number];

// Reviews (src/domain/review.ts).
export const RATING_MIN = 1;
export const RATING_MAX = 5;
export const REVIEW_TEXT_MAX = 2000;

// Notifications (src/domain/notifications.ts).
export const NOTIFICATION_CHANNELS = ['inbox', 'email'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

// Credits (src/domain/credits.ts).
export const SUBSCRIPTION_TIERS = ['free', 'pro', 'team'] as const;
export type SubscriptionTier = (typeof SUBSCRIPTION_TIERS)[number];
/** What a user may deduct themself (POST /api/credits), and what the platform charges under. */
export const DEDUCTION_REASONS = ['match_deduction', 'intro_deduction'] as const;
export type DeductionReason = (typeof DEDUCTION_REASONS)[number];
/** Grants: the tier's monthly grant (its reference is the period) and an operator's grant (CLI). */
export const GRANT_REASONS = ['monthly_grant', 'operator_grant'] as const;
export type GrantReason = (typeof GRANT_REASONS)[number];
export const CREDIT_REASONS = [...GRANT_REASONS, ...DEDUCTION_REASONS] as const;
export type CreditReason = (typeof CREDIT_REASONS)[number];
/** Bounds of the inputs (the spec says the same). */
export const REFERENCE_ID_MAX = 128;
export const NOTE_MAX = 200;

// Discovery feedback (src/domain/feedback.ts): what a user may say about a gig they were shown.
export const FEEDBACK_SIGNALS = ['up', 'down', 'hide'] as const;
export type FeedbackSignal = (typeof FEEDBACK_SIGNALS)[number];

// Uploaded files (src/domain/uploads.ts).
export const UPLOAD_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];
/** What a stored file is for (`stored_files.purpose`). */
export const FILE_PURPOSES = ['resume', 'dispute_evidence'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

// Disputes (src/domain/dispute.ts).
export const DISPUTE_STATUSES = ['open', 'responded', 'resolved', 'withdrawn'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DISPUTE_REASONS = ['work_not_delivered', 'work_not_as_agreed', 'payment_withheld', 'scope_disagreement', 'other'] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];
/** `release`: the money goes to the worker; `refund`: back to the client; `split`: the worker gets a share, the client the rest. */
export const DISPUTE_OUTCOMES = ['release', 'refund', 'split'] as const;
export type DisputeOutcome = (typeof DISPUTE_OUTCOMES)[number];
export const EVIDENCE_KINDS = ['text', 'file'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];
export const DESCRIPTION_MAX = 5000;
export const EVIDENCE_TEXT_MAX = 5000;

/** What one party accepts: an outcome, and for a split the worker's share in percent (1 to 99). */
export interface Acceptance {
  outcome: DisputeOutcome;
  worker_share_percent: number | null;
  accepted_at: string;
}

/** An advisory recommendation from a language model, as stored and shown (it binds nobody). */
export interface Recommendation {
  outcome: DisputeOutcome;
  worker_share_percent: number | null;
  reasoning: string;
  cited_evidence_ids: string[];
  confidence: number;
  model: string;
  created_at: string;
}

/** The accepted outcome, and how each disputed milestone's money is divided (fixed when resolved). */
export interface Resolution {
  outcome: DisputeOutcome;
  worker_share_percent: number | null;
  milestones: { milestone_id: string; worker_cents: number; refund_cents: number }[];
}
