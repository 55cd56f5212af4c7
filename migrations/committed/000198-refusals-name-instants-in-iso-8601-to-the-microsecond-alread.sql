--! Previous: sha1:56c317e7013326307ed7367f172a19a247338412
--! Hash: sha1:132e6095a88ad0ca564a019d0f31a1d8d5a09659
--! Message: Refusals name instants in ISO 8601 to the microsecond; already_claimed names who holds the claim

--! split: 1-current.sql
-- Refusals name instants in ISO 8601 (microseconds, UTC); already_claimed names who holds the claim.
--! Included issues/tools/claim.sql
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
--! EndIncluded issues/tools/claim.sql
--! Included attachments/tools/finalize.sql
-- The attachments.finalize tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The Node half measured the object (storedSize, null when absent); this checks the upload is the
-- caller's workspace's, not expired, its target still visible, and the size is the declared one, then
-- registers the FILE attachment (ISSUE_UPDATED & co. by trigger) and closes the upload.
create or replace function app_tools.attachments_finalize(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_upload app_public.attachment_uploads;
  v_target record;
  v_row app_public.attachments;
begin
  select * into v_upload from app_public.attachment_uploads u where u.storage_key = args->>'key';
  if v_upload.id is null then
    raise exception 'Upload not found (already finalized, expired, or never started)' using errcode = 'SV404', column = 'key';
  end if;
  if v_upload.expires_at <= now() then
    raise exception 'The upload expired at %; start again with attachments.initUpload', app_hidden.ts_key(v_upload.expires_at)
      using errcode = 'SV409', detail = 'upload_expired';
  end if;
  -- An upload whose target this key may not see (another person's, on an issue outside its narrowing) is not found
  -- as an upload: "Issue not found" on a field the call does not have said that it exists.
  begin
    v_target := app_hidden.attachment_target_for_write(v_upload.target_type, v_upload.target_id::text);
  exception when sqlstate 'SV404' then
    raise exception 'Upload not found (already finalized, expired, or never started)' using errcode = 'SV404', column = 'key';
  end;
  -- Gated as initUpload is (spec 3.2): the run's mode may have turned RESEARCH, REVIEW or DISCUSS since the upload began.
  if v_upload.target_type = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if args->'storedSize' is null or args->'storedSize' = 'null'::jsonb then
    raise exception 'Nothing was uploaded to this key yet: PUT the file to uploadUrl first' using errcode = 'SV409', detail = 'upload_missing';
  end if;
  if (args->>'storedSize')::bigint <> v_upload.size_bytes then
    raise exception 'The stored object has % bytes, initUpload declared %', args->>'storedSize', v_upload.size_bytes
      using errcode = 'SV409', detail = 'size_mismatch';
  end if;
  -- The delete is the arbiter between two finalize calls (and the expiry job): one of them gets the row.
  delete from app_public.attachment_uploads u where u.id = v_upload.id and u.expires_at > now();
  if not found then
    raise exception 'Upload not found (already finalized, expired, or never started)' using errcode = 'SV404', column = 'key';
  end if;
  insert into app_public.attachments (id, workspace_id, kind, target_type, target_id, filename, mime_type, size_bytes,
                                      storage_key, created_by_user_id, created_by_agent_id, upload_id)
  values (v_upload.id, v_upload.workspace_id, 'FILE', v_upload.target_type, v_target.target_id, v_upload.filename,
          v_upload.mime_type, v_upload.size_bytes, v_upload.storage_key, app_hidden.current_user_id(),
          app_hidden.current_agent_id(), v_upload.id);
  select * into v_row from app_public.attachments a where a.id = v_upload.id;
  return app_hidden.attachment_json(v_row);
end
$$;
grant execute on function app_tools.attachments_finalize(args jsonb) to svc_visitor;
comment on function app_tools.attachments_finalize(args jsonb) is 'attachments.finalize: Register an uploaded file as an Attachment (kind FILE): checks the object exists with the size declared at initUpload. An upload never finalized is removed (row and blob) after it expires.';
--! EndIncluded attachments/tools/finalize.sql
