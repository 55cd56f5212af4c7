--! Previous: sha1:1a1f9b591a3ae9fd3c949a2ca1185fbc021a6e79
--! Hash: sha1:324cc028e3044a67c45d14aa3c0aaad812f208d3
--! Message: security review fixes: agent links, agent keys, plugin keys, narrowing of issue labels, admin reads

--! split: 1-current.sql
-- Enter migration here

--! split: 53-security-review-fixes.sql
-- Fixes from a security review (each exploit has a test in test/auth/escalation.test.ts).

-- 1. Only AGENT keys act as an agent. (A SESSION key with a linked agent let a MEMBER act as any agent.)
alter table app_private.api_keys add constraint api_keys_agent_link_matches_kind
  check ((kind = 'AGENT') = (linked_agent_id is not null));

-- 2. An agent key cannot mint keys (that would shed its agent identity and run-mode gating); linking an
--    agent is administration whatever the kind.
create or replace function app_hidden.access_create_key(
  p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[],
  p_initiative_ids uuid[], p_expires_at timestamptz, p_name text
) returns app_public.issued_api_key
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
  v_scopes text[] := coalesce(p_scopes, v_caller.scopes);
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  if v_caller.user_id is null then
    raise exception 'Plugin keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  -- An agent's key cannot shed its agent identity (and its run-mode gating) by minting a user key.
  if exists (select 1 from app_private.api_keys k where k.id = v_caller.key_id and k.linked_agent_id is not null) then
    raise exception 'Agent keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  if v_kind = 'AGENT' or p_linked_agent_id is not null then
    -- A key that acts as an agent is workspace administration.
    perform app_private.require_admin(v_caller);
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it.
  if cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0 then
    if cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
      v_projects := v_caller.project_ids;
      v_labels := v_caller.label_ids;
    elsif not (v_projects <@ v_caller.project_ids and v_labels <@ v_caller.label_ids) then
      raise exception 'A narrowed key can only create keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 then
    if cardinality(v_initiatives) = 0 then
      v_initiatives := v_caller.initiative_ids;
    elsif not v_initiatives <@ v_caller.initiative_ids then
      raise exception 'A narrowed key can only create keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  -- A key never outlives the key that created it.
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;

-- 3. Plugin keys follow the same narrowing and expiry rules as access.create.
create or replace function app_hidden.plugin_issue_api_key(
  p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[],
  p_expires_at timestamptz, p_name text
) returns app_public.issued_api_key
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
  v_allowed text[];
  v_extra text[];
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  perform app_private.require_admin(v_caller);
  select * into v_plugin from app_private.plugins where id = p_plugin_id and workspace_id = v_caller.workspace_id;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  if v_plugin.approved_at is null then
    raise exception 'Plugin is not approved' using errcode = 'SV422', detail = 'plugin_not_approved';
  end if;
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  v_allowed := array(select jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')));
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where s <> all(v_allowed));
    if cardinality(v_extra) > 0 then
      perform app_hidden.raise_invalid('scopes', format(
        'scopes must be a subset of the plugin''s manifest.scopes (%s); not allowed: %s',
        array_to_string(v_allowed, ', '), array_to_string(v_extra, ', ')));
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, p_scopes);
  -- Same rules as access.create: narrowing can only shrink, and a key never outlives its creator's.
  if cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0 then
    if cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
      v_projects := v_caller.project_ids;
      v_labels := v_caller.label_ids;
    elsif not (v_projects <@ v_caller.project_ids and v_labels <@ v_caller.label_ids) then
      raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 then
    if cardinality(v_initiatives) = 0 then
      v_initiatives := v_caller.initiative_ids;
    elsif not v_initiatives <@ v_caller.initiative_ids then
      raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
end
$$;

-- 4. Plugin keys have no user of their own. svc.user_id now carries the key's own user (the API no longer
--    substitutes the first member, which made a plugin key the OWNER for notes, pins, time and moderation);
--    only an issue's creator falls back to the first member, as the spec asks for issues.create.
create or replace function app_private.tg_issues__plugin_creator() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  if new.created_by_user_id is null and new.created_by_agent_id is null then
    new.created_by_user_id := (select m.user_id from app_public.memberships m
                               where m.workspace_id = new.workspace_id order by m.created_at, m.id limit 1);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__plugin_creator() is
  'BEFORE INSERT on issues: an issue created by a key with neither user nor agent (a plugin key) is attributed to the first workspace member (spec 4.2).';
create trigger _210_plugin_creator before insert on app_public.issues
  for each row execute function app_private.tg_issues__plugin_creator();

-- 5. A narrowed key sees issue_labels only of issues it can see (GraphQL exposed hidden issue ids).
--    issue_passes_narrowing reads issue_labels itself, so it must bypass that table's policy.
alter function app_hidden.issue_passes_narrowing(uuid, uuid) security definer set search_path = pg_catalog;
drop policy select_in_workspace on app_public.issue_labels;
create policy select_in_workspace on app_public.issue_labels for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = issue_labels.issue_id)));
comment on policy select_in_workspace on app_public.issue_labels is 'Labels on issues the caller can see (narrowing applies).';

-- 6. Webhook tables are administration: the ADMIN scope is part of "workspace admin" for reads too.
create or replace function app_hidden.is_workspace_admin() returns boolean
language sql stable security definer set search_path = pg_catalog as $$
  select app_hidden.has_scope('ADMIN') and exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is
  'True when the calling key holds ADMIN and its own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';
