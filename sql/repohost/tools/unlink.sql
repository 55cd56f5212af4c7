-- The repohost.unlink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes one link (an id from repohost.listLinked or repohost.link) of an issue the key may change; the
-- resource's snapshot stays (workspace-wide, other issues may link it). ISSUE_UPDATED (externalResources) by
-- trigger, as linking writes. Of two concurrent calls for one link, the second (after the first's lock) finds it
-- gone: 404, no event.
create or replace function app_tools.repohost_unlink(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_link app_public.external_links := app_hidden.found(
    (select l from app_public.external_links l
     where l.id = app_hidden.parse_uuid(args->>'id', 'id') and l.workspace_id = app_hidden.current_workspace_id()),
    'Link');
  v_issue app_public.issues;
begin
  -- The issue's own write path: live and visible (404), locked, run-mode gated (as repohost.link).
  v_issue := app_hidden.issue_for_write(v_link.issue_id::text, 'id');
  -- The link was read before the lock: a concurrent unlink may have removed it (or repohost.link changed its kind).
  delete from app_public.external_links l where l.id = v_link.id returning * into v_link;
  if not found then
    raise exception 'Link not found' using errcode = 'SV404', column = 'id';
  end if;
  return jsonb_build_object('id', v_link.id, 'issueId', v_issue.id, 'issueKey', v_issue.key, 'resourceId', v_link.resource_id,
                            'kind', v_link.kind, 'removed', true);
end
$$;
grant execute on function app_tools.repohost_unlink(args jsonb) to svc_visitor;
comment on function app_tools.repohost_unlink(args jsonb) is 'repohost.unlink: Remove a link between an issue and an external issue or PR (id from repohost.listLinked). Nothing is written to the host.';
