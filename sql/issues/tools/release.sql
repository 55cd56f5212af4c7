-- The issues.release tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- clears the human claim. The claimer (with a person's key) may always release; another user's live claim needs a
-- workspace OWNER/ADMIN acting as a person (403 not_claimer). Unclaimed: no change. Run-mode gated.
create or replace function app_tools.issues_release(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.claimed_by_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  -- An agent's key is not the person who claimed, whoever made it.
  if (v_issue.claimed_by_id is distinct from app_hidden.current_user_id() or app_hidden.current_agent_id() is not null)
     and v_issue.claim_expires_at > now()
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the claimer or a workspace OWNER/ADMIN acting as a person may release a live claim (or anyone once it expired)'
      using errcode = 'SV403', detail = 'not_claimer';
  end if;
  update app_public.issues set claimed_by_id = null, claim_expires_at = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_release(args jsonb) is 'issues.release: Clear the human claim on an issue. Your own claim (a person''s key: an agent''s key is not the person who claimed), an expired claim, or anyone''s for a workspace OWNER or ADMIN acting as a person (403 not_claimer otherwise).';
grant execute on function app_tools.issues_release(args jsonb) to svc_visitor;
