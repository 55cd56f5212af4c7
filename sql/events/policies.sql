-- Row-level security policies of the events tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.activity_events;
create policy owner_all on app_public.activity_events for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.activity_events is 'Only the owner writes events (through app_private.record_event).';

drop policy if exists select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND
CASE subject_type
    WHEN 'issue'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.issues i
      WHERE (i.id = activity_events.subject_id))))
    WHEN 'comment'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.comments c
      WHERE (c.id = activity_events.subject_id))))
    WHEN 'project'::text THEN ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (subject_id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))
    WHEN 'initiative'::text THEN ((( SELECT cardinality(app_hidden.narrowed_initiative_ids()) AS cardinality) = 0) OR (subject_id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))
    WHEN 'goal'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.goals g
      WHERE (g.id = activity_events.subject_id))))
    WHEN 'execution-plan'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.execution_plans p
      WHERE (p.id = activity_events.subject_id))))
    WHEN 'execution-step'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.execution_steps s
      WHERE (s.id = activity_events.subject_id))))
    WHEN 'review-gate'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.review_gates rg
      WHERE (rg.id = activity_events.subject_id))))
    WHEN 'action-request'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.action_requests ar
      WHERE (ar.id = activity_events.subject_id))))
    ELSE true
END));
comment on policy select_in_workspace on app_public.activity_events is 'Events of the caller''s workspace; a narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, and goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue).';
