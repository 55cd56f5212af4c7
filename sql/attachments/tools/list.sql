-- The attachments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- attachments of one visible target, oldest first (an array: a target's attachments are few).
create or replace function app_tools.attachments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
begin
  return coalesce((select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
    from app_public.attachments a
    where a.workspace_id = app_hidden.current_workspace_id() and a.target_type = args->>'targetType'
      and a.target_id = v_target.target_id
      and (args->>'kind' is null or a.kind = args->>'kind')), '[]');
end
$$;
grant execute on function app_tools.attachments_list(args jsonb) to svc_visitor;
comment on function app_tools.attachments_list(args jsonb) is 'attachments.list: Attachments (files and links) of an issue, comment, cycle or initiative, oldest first.';
