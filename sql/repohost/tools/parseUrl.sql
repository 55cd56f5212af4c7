-- The repohost.parseUrl tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- pure parsing; no host call, no mapping needed.
create or replace function app_tools.repohost_parse_url(args jsonb)
 returns jsonb
 language sql
 immutable
as $$
  select app_hidden.repo_parse_url(args->>'url')
$$;
grant execute on function app_tools.repohost_parse_url(args jsonb) to svc_visitor;
