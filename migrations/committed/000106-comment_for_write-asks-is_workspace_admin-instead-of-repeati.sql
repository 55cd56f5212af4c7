--! Previous: sha1:7790aa281ff8e6d55b706db212c54af9468e9a22
--! Hash: sha1:370e0a6928fa1b2e5787843ea5ee71343ebe8cab
--! Message: comment_for_write asks is_workspace_admin instead of repeating it

--! split: 1-current.sql
-- comment_for_write asks app_hidden.is_workspace_admin() (the ADMIN scope and an OWNER/ADMIN user) instead of
-- spelling the same test out again; behaviour unchanged.
--! Included comments/comments.sql
-- comments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.comment_for_write(p_id text)
 returns app_public.comments
 language plpgsql
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, 'id') and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id()
  for update of c;
  if v_comment.id is null then
    raise exception 'Comment not found' using errcode = 'SV404', column = 'id';
  end if;
  -- The author is the agent when an agent wrote it, else the user; a key acts as its agent when it has one.
  if not coalesce(case when v_comment.authoring_agent_id is not null
                        then v_comment.authoring_agent_id = app_hidden.current_agent_id()
                        else app_hidden.current_agent_id() is null and v_comment.author_user_id = app_hidden.current_user_id() end, false)
     and not app_hidden.caller_may_moderate()
     -- Spec 5 item 9 also names an ADMIN-scoped key: one made for an OWNER/ADMIN (an agent's key included). A
     -- MEMBER's key holding ADMIN (keys are FULL by default) stays a member's.
     and not app_hidden.is_workspace_admin() then
    raise exception 'Only the author, a workspace OWNER/ADMIN, or an ADMIN-scoped key of one may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(p_id text) is 'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), a person key of a workspace OWNER/ADMIN (caller_may_moderate), or a key holding ADMIN made for an OWNER/ADMIN (an agent''s too; a MEMBER''s ADMIN scope does not moderate, docs/decisions.md) (403 not_author otherwise).';
grant execute on function app_hidden.comment_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (lists join the authors).
  select jsonb_build_object(
    'id', c.id, 'issueId', c.issue_id, 'body', c.body, 'kind', c.kind, 'confidence', c.confidence,
    'authorUserId', c.author_user_id, 'authoringAgentId', c.authoring_agent_id, 'runId', c.run_id,
    'author', case when u.id is not null then
                jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email) end,
    'authoringAgent', case when a.id is not null then
                        jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'editedAt', c.edited_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) is 'The Comment shape from rows the caller already fetched: the author user (u) and authoring agent (a) as the caller can see them; inlined into lists.';
grant execute on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) to svc_visitor;

create or replace function app_hidden.comment_json(c app_public.comments)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql: as `language sql` with subqueries it was never inlined and was planned again in every
  -- statement that called it (~1 ms per comments.create).
  return (select app_hidden.comment_shape(c, u, a)
          from (select 1) as one
          left join app_public.users u on u.id = c.author_user_id
          left join app_public.agents a on a.id = c.authoring_agent_id);
end
$$;
comment on function app_hidden.comment_json(c app_public.comments) is 'Comment (spec 2.4) with author {id, name, email} and authoringAgent {id, profileKey, name}. Revisions are an in-app read only and are not shown.';
grant execute on function app_hidden.comment_json(c app_public.comments) to svc_visitor;

create or replace function app_public.comments_revision_history(c app_public.comments)
 returns setof app_public.comment_revision
 language sql
 stable
as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(c app_public.comments) is 'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';
grant execute on function app_public.comments_revision_history(c app_public.comments) to svc_visitor;
--! EndIncluded comments/comments.sql
