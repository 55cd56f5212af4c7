--! Previous: sha1:6b7bc8b8fd1daa70a7d28a13943ef7333f6270e8
--! Hash: sha1:ef6f71a08630c0d7626decdf1c692c4595c439fa
--! Message: Narrowing checks are never NULL

--! split: 1-current.sql
-- The narrowing checks are never NULL: an issue that came into a project-narrowed key's view from no project showed
-- that key its before (labels, cycle) where it could not see it (live-events probe).
--! Included core/narrowing.sql
-- Key narrowing (projectIds, labelIds, initiativeIds) as the policies and tools read it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid)
 returns boolean
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- plpgsql: its query is planned once per session. As a (security definer, so never inlined) SQL function
  -- it was planned again in every call, ~0.2-0.3 ms per narrowed row.
  -- Never NULL (an issue without a project compared NULL): a caller may negate it.
  return coalesce(p_project_id = any(app_hidden.narrowed_project_ids()), false)
      or exists (select 1 from app_public.issue_labels il
                 where il.issue_id = p_issue_id and il.label_id = any(app_hidden.narrowed_label_ids()));
end
$$;
comment on function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid) is 'Spec 5.6: an issue passes when its project is in projectIds or any of its labels is in labelIds (OR). Only consulted for narrowed keys.';
grant execute on function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid) to svc_visitor;

create or replace function app_hidden.scope_passes_narrowing(p_project_id uuid, p_label_ids jsonb)
 returns boolean
 language sql
 stable
as $$
  -- Never NULL: a scope without a project compared NULL, and `not NULL` kept the before of an issue that came into a
  -- project-narrowed key's view from no project (its labels and cycle there).
  select coalesce(p_project_id = any(app_hidden.narrowed_project_ids()), false)
      or exists (select 1 from jsonb_array_elements_text(coalesce(p_label_ids, '[]')) l(id)
                 where l.id::uuid = any(app_hidden.narrowed_label_ids()))
$$;
comment on function app_hidden.scope_passes_narrowing(p_project_id uuid, p_label_ids jsonb) is 'Spec 5.6 for a scope recorded in an event (a project id and a json array of label ids) rather than a live issue: whether the calling narrowed key would see an issue there.';
grant execute on function app_hidden.scope_passes_narrowing(p_project_id uuid, p_label_ids jsonb) to svc_visitor;

create or replace function app_hidden.issues_unrestricted()
 returns boolean
 language sql
 stable parallel safe
as $$
    select cardinality(app_hidden.narrowed_project_ids()) = 0 and cardinality(app_hidden.narrowed_label_ids()) = 0
  $$;
comment on function app_hidden.issues_unrestricted() is 'True when the calling key has neither project nor label narrowing (issues are then unrestricted within the workspace).';
grant execute on function app_hidden.issues_unrestricted() to svc_visitor;

create or replace function app_hidden.narrowed_initiative_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.initiative_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_initiative_ids() is 'Initiative narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_initiative_ids() to svc_visitor;

create or replace function app_hidden.narrowed_label_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.label_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_label_ids() is 'Label narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_label_ids() to svc_visitor;

create or replace function app_hidden.narrowed_project_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.project_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_project_ids() is 'Project narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_project_ids() to svc_visitor;

create or replace function app_hidden.require_issues_unrestricted(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.issues_unrestricted() then
    raise exception '% changes the whole workspace; it needs a key without project or label narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_issues_unrestricted(p_what text) is 'Workspace-wide planning moves (creating, re-dating and rolling over cycles) need a key that sees every issue: 403 narrowing otherwise.';
grant execute on function app_hidden.require_issues_unrestricted(p_what text) to svc_visitor;
--! EndIncluded core/narrowing.sql
