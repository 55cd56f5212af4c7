-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim (never shortens it); another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  -- claimedById is a person's claim: an agent's key claimed as the user who made the key.
  if app_hidden.current_agent_id() is not null then
    raise exception 'A claim is a person''s: an agent takes an issue by assignment (issues.assign, or the queue and dispatch)'
      using errcode = 'SV403', detail = 'person_required';
  end if;
  perform app_hidden.hold_membership();
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    -- Who holds it and until when exactly (to the microsecond: a retry in the second the message named was refused).
    raise exception 'The issue is claimed by % (user %) until %',
      coalesce((select coalesce(nullif(u.name, ''), u.email) from app_public.users u where u.id = v_issue.claimed_by_id), 'another member'),
      v_issue.claimed_by_id, app_hidden.ts_key(v_issue.claim_expires_at)
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  -- Claiming one's own live claim again extends it and never shortens it (release ends a claim early).
  update app_public.issues
  set claimed_by_id = v_user,
      -- greatest() passes over the null of any other claim.
      claim_expires_at = greatest(case when v_issue.claimed_by_id = v_user then v_issue.claim_expires_at end,
                                  now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240)))
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it (never shortens it; ISSUE_UPDATED changes claimExpiresAt); another user''s unexpired claim is 409 already_claimed. A claim is a person''s: an agent key takes work by assignment (403 person_required).';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
