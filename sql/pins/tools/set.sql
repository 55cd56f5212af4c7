-- The pins.set tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- makes the caller's pinned issues exactly this ordered list (idempotent); other pin types and pins outside a
-- narrowed key's reach are untouched.
create or replace function app_tools.pins_set(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_ids uuid[] := app_hidden.resolve_issue_list(args->'issueIds', 'issueIds');
begin
  -- One replacement of a person's pins at a time: two at once each deleted what the other had not inserted yet
  -- and left a merge of both lists with repeated positions.
  perform pg_advisory_xact_lock(hashtextextended('svc.pins:' || app_hidden.current_workspace_id()::text || ':' || v_user::text, 0));
  -- Pins on issues outside a narrowed key's reach are not this key's to change: they stay.
  delete from app_public.pins p
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = v_user and p.target_type = 'ISSUE'
    and not (p.target_id = any(v_ids))
    and (app_hidden.issues_unrestricted() or exists (select 1 from app_public.issues i where i.id = p.target_id));
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  select app_hidden.current_workspace_id(), v_user, 'ISSUE', t.id, t.ord - 1
  from unnest(v_ids) with ordinality t(id, ord)
  on conflict (workspace_id, user_id, target_type, target_id)
  do update set position = excluded.position where pins.position is distinct from excluded.position;
  -- A narrowed key's list sits among the pins it cannot see: number them all again so no two share a place.
  if not app_hidden.issues_unrestricted() then
    perform app_hidden.renumber_issue_pins(v_ids);
  end if;
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_set(args jsonb) is 'pins.set: Replace your pinned issues with exactly this ordered list of issue ids or keys (empty list unpins all). Idempotent: send the full desired list. Returns the new pins.';
grant execute on function app_tools.pins_set(args jsonb) to svc_visitor;
