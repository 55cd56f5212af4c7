--! Previous: sha1:733d02b092a42b7540b3c6b0fccc0ebc1abfcfaa
--! Hash: sha1:cf27f62ba95e85b390b941154dabd2a0d406422b
--! Message: Review fixes: label rules check as owner under lock, rollover early-activated sprint, plugin name, lock naming

--! split: 1-current.sql
-- Review of the session: the label check for dispatch rules reads them as the owner (the rules policy hides them from
-- a narrowed key, which then passed the check) under the label's row lock; rollover skips only a sprint that began
-- today, not one activated before its dates; a plugin's name is stored as checked; the watchdog lock is named as the
-- other advisory locks are.
--! Included labels/labels.sql
-- labels: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_label(p_id text)
 returns app_public.labels
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select l from app_public.labels l
     where l.id = app_hidden.parse_uuid(p_id, 'id') and l.workspace_id = app_hidden.current_workspace_id()), 'Label');
end
$$;
comment on function app_hidden.find_label(p_id text) is 'A label of the caller''s workspace by id, else 404 naming id.';
grant execute on function app_hidden.find_label(p_id text) to svc_visitor;

create or replace function app_hidden.find_label_for_write(p_id text)
 returns app_public.labels
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.find_label(p_id);
begin
  if not app_hidden.issues_unrestricted() then
    raise exception 'A key with project or label narrowing may not change workspace labels'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_label;
end
$$;
comment on function app_hidden.find_label_for_write(p_id text) is 'A label of the caller''s workspace (404 otherwise) that the key may change (403 narrowing for narrowed keys).';
grant execute on function app_hidden.find_label_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text)
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- As the owner: the rules policy hides every rule from a narrowed key (an initiative-narrowed key may change labels),
  -- which must not make the label look free of them. The caller holds the label's row lock, so a rule cannot be
  -- added between this check and the delete.
  -- Dispatch rules are OWNER/ADMIN's (decisions: Dispatch rules); a label they route by takes them along when it
  -- goes (deleted with it, or moved by a merge), so only those who may change the rules may do that.
  if exists (select 1 from app_public.dispatch_rules r where r.workspace_id = p_label.workspace_id and r.label_id = p_label.id)
     and not app_hidden.is_workspace_admin() then
    raise exception 'Dispatch rules route by label "%": only an OWNER or ADMIN key (ADMIN scope) may %', p_label.name, p_what
      using errcode = 'SV403', detail = 'admin_required';
  end if;
end
$$;
comment on function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text) is '403 admin_required when dispatch rules use the label and the key is not a workspace admin''s with ADMIN: deleting or merging it changes those rules.';
grant execute on function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text) to svc_visitor;

create or replace function app_hidden.label_json(l app_public.labels)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color, 'description', l.description,
                            'createdAt', l.created_at, 'updatedAt', l.updated_at)
$$;
comment on function app_hidden.label_json(l app_public.labels) is 'Label {id, name, color, description, createdAt, updatedAt}.';
grant execute on function app_hidden.label_json(l app_public.labels) to svc_visitor;

create or replace function app_hidden.raise_label_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A label named "%" already exists', p_name using errcode = 'SV409', detail = 'label_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_label_name_taken(p_name text) is 'Raises 409 label_exists (names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_label_name_taken(p_name text) to svc_visitor;
--! EndIncluded labels/labels.sql
--! Included labels/tools/delete.sql
-- The labels.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys. Dispatch
-- rules on it go with it, so a label they use is for workspace admins only.
create or replace function app_tools.labels_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
  v_count int;
begin
  perform from app_public.labels l where l.id = v_label.id for update;
  perform app_hidden.require_rules_admin_for_label(v_label, 'delete it (its rules go with it)');
  -- Take it off issues first (as the caller, so each issue records ISSUE_UPDATED), then delete it.
  delete from app_public.issue_labels where label_id = v_label.id;
  get diagnostics v_count = row_count;
  delete from app_public.labels where id = v_label.id;
  return jsonb_build_object('ok', true, 'id', v_label.id, 'removedFromIssues', v_count);
end
$$;
comment on function app_tools.labels_delete(args jsonb) is 'labels.delete: Delete a label; it comes off every issue. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_delete(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/delete.sql
--! Included labels/tools/merge.sql
-- The labels.merge tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- every issue carrying the label fromId (deleted issues too: they keep their labels) gets intoId, then fromId is
-- deleted as labels.delete deletes it (dispatch rules on it go with it: only workspace admins may merge a label
-- rules use). One ISSUE_UPDATED (labelIds) per issue
-- that carried fromId, by the issue_labels triggers. Not for narrowed keys (they would relabel issues they
-- cannot see).
create or replace function app_tools.labels_merge(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_from app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'fromId', 'fromId') and l.workspace_id = v_ws),
    'Label', 'fromId');
  v_into app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'intoId', 'intoId') and l.workspace_id = v_ws),
    'Label', 'intoId');
  v_carried int;
  v_added int;
begin
  if v_from.id = v_into.id then
    perform app_hidden.raise_invalid('intoId', 'must be another label than fromId');
  end if;
  perform app_hidden.require_issues_unrestricted('Merging labels');
  -- Both labels locked, in id order: a concurrent rename, delete or merge of either waits for this one. `into`
  -- only FOR NO KEY UPDATE: labelling an issue with it takes KEY SHARE on it while holding the issue's row, and
  -- this merge then waits for that issue (a FOR UPDATE here deadlocked them).
  if v_from.id < v_into.id then
    perform from app_public.labels l where l.id = v_from.id for update;
    perform from app_public.labels l where l.id = v_into.id for no key update;
  else
    perform from app_public.labels l where l.id = v_into.id for no key update;
    perform from app_public.labels l where l.id = v_from.id for update;
  end if;
  -- Read before the locks: a concurrent merge or delete may have removed either label while this one waited.
  perform app_hidden.found((select l from app_public.labels l where l.id = v_from.id), 'Label', 'fromId');
  perform app_hidden.found((select l from app_public.labels l where l.id = v_into.id), 'Label', 'intoId');
  perform app_hidden.require_rules_admin_for_label(v_from, 'merge it away (its rules go with it)');
  -- Then the issues carrying `from`, in id order, before writing any of their labels: an issue being labelled
  -- concurrently holds its row while it inserts (issue, into); taking the row first makes this merge wait for
  -- that write instead of both waiting on each other's (issue, into) row.
  perform from app_public.issues i
  where i.workspace_id = v_ws and i.id in (select il.issue_id from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id)
  order by i.id for update;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select il.workspace_id, il.issue_id, v_into.id from app_public.issue_labels il
  where il.workspace_id = v_ws and il.label_id = v_from.id
  on conflict do nothing;
  get diagnostics v_added = row_count;
  delete from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id;
  get diagnostics v_carried = row_count;
  delete from app_public.labels l where l.id = v_from.id;
  return jsonb_build_object('ok', true, 'fromId', v_from.id, 'fromName', v_from.name,
                            'into', app_hidden.label_json(v_into), 'issueCount', v_carried, 'addedToIssues', v_added);
end
$$;
grant execute on function app_tools.labels_merge(args jsonb) to svc_visitor;
comment on function app_tools.labels_merge(args jsonb) is 'labels.merge: Merge label fromId into intoId: its issues get intoId, then fromId is deleted (as labels.delete). Returns the surviving label and issue counts. Keys narrowed to projects or labels may not.';
--! EndIncluded labels/tools/merge.sql
--! Included cycles/tools/rollover.sql
-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the current cycle (current_cycle: dates include
-- today; unless it began today), or else from the last ended cycle not rolled over yet, to the next cycle (the earliest
-- non-canceled one not ended that starts after the source, created from cycleLengthDays/cycleCooldownDays when none). Cycles keep following the calendar:
-- nothing is activated or completed early; only an ended source cycle gets its stored COMPLETED (= rolled over).
-- Repeating it the same day moves what is still unfinished and changes nothing else. Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_from app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  -- Where the issues come from: the current cycle, unless it began today (nothing ran in it yet: a rollover on a
  -- sprint's first day is about the one that just ended, and a repeat of a late rollover must not empty the sprint
  -- it started), else the latest one that ran to its end without a rollover.
  v_from := app_hidden.current_cycle();
  if v_from.id is null or v_from.starts_on = app_hidden.utc_today() then
    select * into v_from from app_public.cycles
    where workspace_id = v_ws.id and status not in ('CANCELED', 'COMPLETED') and ends_on < app_hidden.utc_today()
    order by ends_on desc limit 1;
  end if;
  -- Where they go: the earliest non-canceled cycle that has not ended and starts after the source ends (for an ended
  -- source, the running one included).
  select * into v_next from app_public.cycles c
  where c.workspace_id = v_ws.id and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today()
    and (case when v_from.id is null then c.starts_on >= app_hidden.utc_today()
              else c.id <> v_from.id and c.starts_on > v_from.ends_on end)
  order by c.starts_on, c.number limit 1;
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_from.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_from.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    -- An ended cycle is COMPLETED on the calendar already; the stored value records that it was rolled over.
    if v_from.ends_on < app_hidden.utc_today() and v_from.status <> 'COMPLETED' then
      update app_public.cycles set status = 'COMPLETED' where id = v_from.id returning * into v_from;
    end if;
  end if;
  return jsonb_build_object(
    'completed', case when v_from.id is null or v_from.ends_on >= app_hidden.utc_today() then null else app_hidden.cycle_json(v_from) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: Move the unfinished issues (status not Done/Canceled) of the current sprint (the cycle whose dates include today; when none runs, or it began today, the last one that ended without a rollover) to the next cycle (the earliest one not ended that starts after it, the running one for an ended sprint; created from the workspace cycle length and cooldown when none exists). It never changes which sprint is current: cycles stay ACTIVE while their dates include today and become COMPLETED when they end. Returns completed: the cycle the issues came from when it has ended (null while it still runs), current: the cycle they moved to, movedIssueIds, createdNext. Running it again the same day only moves what is still unfinished. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/rollover.sql
--! Included auth/plugins.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
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
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
end
$$;
comment on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s.';
grant execute on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.plugins()
 returns setof app_public.plugin_info
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.plugin_info(p) from app_private.plugins p
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c)
  order by p.created_at, p.id
$$;
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes only).';
grant execute on function app_hidden.plugins() to svc_visitor;

create or replace function app_hidden.plugins_create(p_name text, p_scopes text[])
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes));
end
$$;
comment on function app_hidden.plugins_create(p_name text, p_scopes text[]) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes.';
grant execute on function app_hidden.plugins_create(p_name text, p_scopes text[]) to svc_visitor;

create or replace function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[])
 returns app_private.plugins
 language plpgsql
as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  p_name := app_hidden.one_line(p_name, 'name', 200);
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, p_name,
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n)))), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[]) is 'Records an approved plugin with manifest.scopes.';

create or replace function app_private.plugin_info(p app_private.plugins)
 returns app_public.plugin_info
 language sql
 stable
as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at)::app_public.plugin_info
$$;
comment on function app_private.plugin_info(p app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval.';

create or replace function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], expires_in_days integer default NULL::integer, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  return app_hidden.plugin_issue_api_key(plugin_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) is 'plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';
grant execute on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) to svc_visitor;

create or replace function app_public.plugins()
 returns setof app_public.plugin_info
 language sql
 stable
as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes only).';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[])
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[]) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[]) is 'OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[]) to svc_visitor;
--! EndIncluded auth/plugins.sql
--! Included dispatch/watchdogs.sql
-- Watchdogs (decisions.md "Watchdogs"): AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH, each at most once
-- per (issue, kind) per 24 h and per assignment (per queueing for the SLA), off when its window is 0 or null. The worker runs the sweep every minute;
-- `svc admin sweep` runs it now. "Now" is a parameter so tests move time instead of sleeping.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text)
 returns timestamptz
 language sql
 stable
as $$
  select e.created_at from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id and e.kind = p_kind
  order by e.seq desc
  limit 1
$$;
comment on function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text) is 'When an issue last had an event of this kind (AGENT_ASSIGNED = assigned, ISSUE_QUEUED = queued, ...); NULL if never.';

create or replace function app_private.watchdog_sweep(p_now timestamptz default now())
 returns jsonb
 language plpgsql
as $$
declare
  v_fired jsonb := '[]';
  r record;
  v_ref timestamptz;
  v_reason text;
begin
  -- One sweep at a time (the worker's minute and `svc admin sweep` may meet): the second waits, then sees what the
  -- first fired, so no watchdog fires twice.
  perform pg_advisory_xact_lock(hashtextextended('svc.watchdog_sweep', 0));
  -- Open issues an agent holds, with when it was assigned (the latest AGENT_ASSIGNED).
  for r in
    select i.id, i.workspace_id, i.assigned_agent_id, i.priority, w.required_ack_seconds, w.assignment_sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'AGENT_ASSIGNED') as assigned_at,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_STATUS_CHANGED') as status_at,
           -- The assigned agent's runs on it: their last sign of life (usage reports, status lines, chat, waiting and
           -- resuming move it; the stale-run sweep marking one STALLED does not).
           (select max(ar.last_event_at) from app_public.agent_runs ar
            where ar.workspace_id = i.workspace_id and ar.issue_id = i.id and ar.agent_id = i.assigned_agent_id) as run_at,
           (select max(c.created_at) from app_public.comments c
            where c.workspace_id = i.workspace_id and c.issue_id = i.id and c.authoring_agent_id = i.assigned_agent_id) as comment_at
    from app_public.workspaces w
    join app_public.issues i on i.workspace_id = w.id and i.assigned_agent_id is not null and i.deleted_at is null
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where w.required_ack_seconds > 0 or w.assignment_sla_minutes > 0
  loop
    continue when r.assigned_at is null;
    -- AGENT_NOACK: the assigned agent neither commented nor moved the status within the window.
    if r.required_ack_seconds > 0 and r.assigned_at + make_interval(secs => r.required_ack_seconds) <= p_now
       and not exists (select 1 from app_public.comments c
                       where c.workspace_id = r.workspace_id and c.issue_id = r.id
                         and c.authoring_agent_id = r.assigned_agent_id and c.created_at >= r.assigned_at)
       and not exists (select 1 from app_public.activity_events e
                       where e.workspace_id = r.workspace_id and e.subject_type = 'issue' and e.subject_id = r.id
                         and e.kind = 'ISSUE_STATUS_CHANGED' and e.actor_agent_id = r.assigned_agent_id
                         and e.created_at >= r.assigned_at)
       and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'AGENT_NOACK', p_now, r.assigned_at) then
      -- Told to the agent too (its dispatch channel, when it has a webhookUrl): it is the one that can answer.
      perform app_private.enqueue_agent_dispatch(app_private.record_event(r.workspace_id, 'AGENT_NOACK', 'issue', r.id, jsonb_build_object(
        'agentId', r.assigned_agent_id, 'issueId', r.id, 'requiredAckSeconds', r.required_ack_seconds,
        'reason', 'no comment or status change from the assigned agent within the acknowledgement window')), r.assigned_agent_id);
      v_fired := v_fired || jsonb_build_object('kind', 'AGENT_NOACK', 'subjectId', r.id);
    end if;
    -- ISSUE_STALLED: nothing moved since the latest of the assignment, a status change, a comment of the assigned
    -- agent and its run's last sign of life (the reason says which).
    if r.assignment_sla_minutes > 0 then
      v_ref := r.assigned_at;
      v_reason := 'no activity since assignment';
      if r.status_at > v_ref then
        v_ref := r.status_at;
        v_reason := 'no activity since last status change';
      end if;
      if r.comment_at > v_ref then
        v_ref := r.comment_at;
        v_reason := 'no activity since the assigned agent''s last comment';
      end if;
      if r.run_at > v_ref then
        v_ref := r.run_at;
        v_reason := 'no activity since the run''s last report';
      end if;
      if v_ref + make_interval(mins => r.assignment_sla_minutes) <= p_now
         and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_STALLED', p_now, r.assigned_at) then
        perform app_private.enqueue_agent_dispatch(app_private.record_event(r.workspace_id, 'ISSUE_STALLED', 'issue', r.id, jsonb_build_object(
          'issueId', r.id, 'slaMinutes', r.assignment_sla_minutes,
          'breachedByMinutes', floor(extract(epoch from p_now - (v_ref + make_interval(mins => r.assignment_sla_minutes))) / 60)::int,
          'priority', r.priority, 'reason', v_reason)), r.assigned_agent_id);
        v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_STALLED', 'subjectId', r.id);
      end if;
    end if;
  end loop;

  -- ISSUE_SLA_BREACH: an open issue's own slaMinutes, counted from when it was (last) queued.
  for r in
    select i.id, i.workspace_id, i.priority, i.sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_QUEUED') as queued_at
    from app_public.issues i
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where i.sla_minutes > 0 and i.queued and i.deleted_at is null
  loop
    continue when r.queued_at is null or r.queued_at + make_interval(mins => r.sla_minutes) > p_now;
    continue when app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_SLA_BREACH', p_now, r.queued_at);
    perform app_private.record_event(r.workspace_id, 'ISSUE_SLA_BREACH', 'issue', r.id, jsonb_build_object(
      'issueId', r.id, 'slaMinutes', r.sla_minutes,
      'breachedByMinutes', floor(extract(epoch from p_now - (r.queued_at + make_interval(mins => r.sla_minutes))) / 60)::int,
      'priority', r.priority));
    v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_SLA_BREACH', 'subjectId', r.id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.watchdog_sweep(p_now timestamptz) is 'Fires the watchdogs due at p_now (default now()) across all workspaces and returns what fired as [{kind, subjectId}]; AGENT_NOACK and ISSUE_STALLED also go to the assigned agent''s dispatch channel. Worker every minute; `svc admin sweep`.';

drop function if exists app_private.watchdog_fired_recently(uuid, uuid, text, timestamptz);  -- now with p_since
create or replace function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz, p_since timestamptz)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.activity_events e
                 where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
                   and e.kind = p_kind and e.created_at > greatest(p_now - interval '24 hours', p_since))
$$;
comment on function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz, p_since timestamptz) is 'True when this watchdog already fired for the issue in the 24 hours before p_now and after p_since (the assignment, or the queueing, it is about): a new assignee gets its own window.';
--! EndIncluded dispatch/watchdogs.sql
