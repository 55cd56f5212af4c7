-- Bulk tools (issues.createMany, issues.updateMany): one item after another, all or nothing.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A bulk tool is `return jsonb_build_object('items', app_hidden.each_item(args->'items', '<fn>(jsonb)'))`,
-- where <fn>(item jsonb) (or <fn>(item jsonb, done jsonb), done = the results so far) handles one item
-- exactly as the single tool does. A business error (SV…) of item N is re-raised naming its field
-- items.N.<field>; any error rolls the whole call back.
create or replace function app_hidden.each_item(p_items jsonb, p_fn regprocedure)
 returns jsonb
 language plpgsql
as $$
declare
  v_call text := format('select %s($1%s)', p_fn::oid::regproc,
                        case when (select p.pronargs from pg_proc p where p.oid = p_fn) = 2 then ', $2' else '' end);
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_result jsonb;
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(p_items) e loop
    begin
      execute v_call into v_result using v_item, v_out;
      v_out := v_out || jsonb_build_array(v_result);
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        -- A 400 names the item in its issues map (the column); any other status only in its message.
        raise exception using errcode = v_state,
          message = case when v_state = 'SV400' then v_msg else format('items.%s: %s', v_index, v_msg) end,
          detail = coalesce(v_detail, ''),
          hint = coalesce(v_hint, ''),
          column = 'items.' || v_index || case when coalesce(v_col, '') <> '' then '.' || v_col else '' end;
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) is 'Bulk tools: p_fn(item[, results so far]) for each item in order, results as a JSON array; a business error (SV…) of item N is re-raised naming its field items.N.<field> (and, when not a 400, starting its message with items.N:), and the whole call rolls back.';
grant execute on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) to svc_visitor;
