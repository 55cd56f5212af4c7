-- The attachments.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a visible attachment (its target's event by trigger); returns it with its object key so the
-- Node half deletes the blob after the commit.
create or replace function app_tools.attachments_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.attachments := app_hidden.attachment_visible(args->>'id');
begin
  if v_row.target_type = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_row.target_id);
  end if;
  delete from app_public.attachments a where a.id = v_row.id;
  -- Two calls at once both found the row; the one whose delete found it gone deleted nothing (its event is the
  -- other's): 404, as for an attachment deleted earlier.
  if not found then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return app_hidden.attachment_blob_ref(v_row) || jsonb_build_object('deleted', true);
end
$$;
grant execute on function app_tools.attachments_delete(args jsonb) to svc_visitor;
comment on function app_tools.attachments_delete(args jsonb) is 'attachments.delete: Delete an attachment: its row, and for a file its blob in the object store.';
