// A vouch as the API shows it (schema Vouch in openapi.yaml).
import type { VouchRow } from '../../db/repositories/vouches.ts';
import { isoTimestamp } from './timestamps.ts';

export function presentVouch(v: VouchRow, voucherDisplayName: string) {
  return {
    voucher_user_id: v.voucherUserId,
    voucher_display_name: voucherDisplayName,
    vouched_user_id: v.vouchedUserId,
    vouched_at: isoTimestamp(v.createdAt),
  };
}
