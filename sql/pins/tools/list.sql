-- The pins.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's pinned issues, in pin order.
create or replace function app_tools.pins_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_list(args jsonb) is 'pins.list: The issues you (the key''s user) pinned, in pin order. Pins are personal.';
grant execute on function app_tools.pins_list(args jsonb) to svc_visitor;
