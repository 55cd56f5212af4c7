-- The issues.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- ISSUE_CREATED per issue.
create or replace function app_tools.issues_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(args->'items') e loop
    begin
      v_out := v_out || jsonb_build_array(app_tools.issues_create(v_item));
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        perform app_hidden.raise_in_item(v_index, v_state, v_msg, v_detail, v_hint, v_col);
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return jsonb_build_object('items', v_out);
end
$$;
comment on function app_tools.issues_create_many(args jsonb) is 'issues.createMany: Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.';
grant execute on function app_tools.issues_create_many(args jsonb) to svc_visitor;
