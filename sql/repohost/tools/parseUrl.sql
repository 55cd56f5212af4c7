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
comment on function app_tools.repohost_parse_url(args jsonb) is 'repohost.parseUrl: Parse an issue or pull request URL (https://<host>/<owner>/<repo>/issues/<n> or /pull/<n>) into {owner, repo, repoFullName, type, number, url}. No call to the host.';
