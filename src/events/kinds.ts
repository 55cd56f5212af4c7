/** Every ActivityEvent kind (spec 6.1, plus AGENT_RUN_KICKED and ours, docs/decisions.md). SQL has the same list in app_hidden.event_kinds(). */
export const EVENT_KINDS = [
  'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
  'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
  'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
  'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
  'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
  'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
  'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED',
  // Ours (docs/decisions.md): run status moves and usage reports, runtime registration/configuration.
  'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_UPDATED', 'RUNTIME_REGISTERED', 'RUNTIME_UPDATED',
  // Orchestration state changes the spec has no kind for (docs/decisions.md).
  'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED', 'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED',
  'CREW_CREATED', 'CREW_UPDATED',
  // Initiatives and cycles (docs/decisions.md, "Events for initiatives and cycles").
  'INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'CYCLE_CREATED', 'CYCLE_UPDATED',
  // goals.update (docs/decisions.md).
  'GOAL_UPDATED',
  // The catalog's completion (docs/decisions.md, "Catalog completion"): cycle deletion, issue restore, the
  // workflow's statuses, webhook registration and canvases.
  'CYCLE_DELETED', 'ISSUE_RESTORED', 'STATUS_CREATED', 'STATUS_UPDATED', 'STATUS_DELETED',
  'WEBHOOK_CREATED', 'WEBHOOK_UPDATED', 'WEBHOOK_DELETED', 'WEBHOOK_TESTED', 'CANVAS_CREATED', 'CANVAS_UPDATED', 'CANVAS_DELETED',
  'WORKSPACE_UPDATED', 'LABEL_CREATED', 'LABEL_UPDATED', 'LABEL_DELETED',
  // Keys issued and revoked (docs/decisions.md, "Key events"): seen by workspace admins and the key's own person.
  'API_KEY_CREATED', 'API_KEY_REVOKED',
  // A chat thread opened (docs/decisions.md, chat): seen by whoever sees the thread, as its messages.
  'CHAT_THREAD_OPENED',
  // A person's own profile changed (docs/decisions.md, "A person's profile"): in each of their workspaces.
  'USER_UPDATED',
  // Dispatch rules added, changed (moved in the order included) and deleted (docs/decisions.md, "Dispatch rules").
  'DISPATCH_RULE_CREATED', 'DISPATCH_RULE_UPDATED', 'DISPATCH_RULE_DELETED',
  // Repository mappings added, changed and removed (docs/decisions.md, "Repository host").
  'REPO_MAPPING_CREATED', 'REPO_MAPPING_UPDATED', 'REPO_MAPPING_DELETED',
  // Plugins recorded and their manifests changed (docs/decisions.md, "Plugins").
  'PLUGIN_CREATED', 'PLUGIN_UPDATED',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
