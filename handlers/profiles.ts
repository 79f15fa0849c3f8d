// Profiles: the caller's own, and anyone's public one. The rules live in src/services/profiles.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import * as profiles from '../src/services/profiles.ts';
import { normalizeTag } from '../src/domain/gig.ts';

export function profileHandlers(): Handlers<'getMyProfile' | 'updateMyProfile' | 'getProfile'> {
  return {
    getMyProfile: (request, _reply, { ctx }) => profiles.getMyProfile(ctx, actorOf(request)),

    async updateMyProfile(request, _reply, { ctx }) {
      const body = request.body;
      const patch: profiles.ProfilePatch = {};
      if (body.display_name !== undefined) patch.displayName = body.display_name;
      if (body.bio !== undefined) patch.bio = body.bio;
      if (body.skills !== undefined) patch.skills = body.skills.map(normalizeTag); // skills are tags
      if (body.portfolio_website_url !== undefined) patch.portfolioWebsiteUrl = body.portfolio_website_url;
      if (body.contact_details !== undefined) patch.contactDetails = body.contact_details;
      if (body.email !== undefined) patch.email = body.email;
      if (body.approval_policy !== undefined) patch.approvalPolicy = body.approval_policy;
      return profiles.updateMyProfile(ctx, actorOf(request), patch);
    },

    getProfile: (request, _reply, { ctx }) => profiles.getPublicProfile(ctx, request.params.userId),
  };
}
