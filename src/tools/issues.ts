import { z } from 'zod';
import { cursor, defineTools, engagementMode, id, int, isoDate, issueRef, limit, line, page, priority, statusCategory, tool } from './define.ts';
import { EventOut, IssueFullOut, IssueOut, IssueWithIncludesOut, RunOut, WatcherOut } from './shapes.ts';

const checklistItem = z.strictObject({
  id: line(100).optional().describe('Stable id runs.complete can name the item by; default item-<n>, its position from 1'),
  label: line(500), done: z.boolean().default(false),
});
// runs.complete reports items done by id (or label): two items with one id could not be told apart.
const checklist = z.array(checklistItem).max(50)
  .transform((items) => items.map((item, n) => ({ ...item, id: item.id ?? `item-${n + 1}` })))
  .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'checklist item ids must be unique');
const runMode = engagementMode
  .describe('Engagement mode of the run the assignment opens (default EXECUTE). RESEARCH/REVIEW/DISCUSS runs may comment but not change the issue.');
const profileKey = line(64);

const createFields = {
  title: line(500),
  description: z.string().max(100_000).optional(),
  projectId: id('projectId').optional(),
  priority: priority.optional(),
  statusId: id('statusId').optional(),
  labelIds: z.array(id('labelIds')).max(50).optional(),
  parentId: issueRef.optional().describe('Parent issue (id or key) to make this a sub-issue'),
  dueDate: isoDate().optional(),
  estimate: z.number().min(0).max(10_000).optional(),
  slaMinutes: int(1).optional(),
  expectedOutput: z.string().max(10_000).optional(),
  verificationChecklist: checklist.optional(),
  artifactRequired: z.boolean().optional(),
};
const createInput = z.strictObject(createFields);

/** Fields issues.update may change; null clears a nullable field. */
const updateFields = {
  title: line(500).optional(),
  description: z.string().max(100_000).nullable().optional(),
  priority: priority.optional(),
  statusId: id('statusId').optional().describe('Same as issues.transition'),
  projectId: id('projectId').nullable().optional(),
  labelIds: z.array(id('labelIds')).max(50).optional().describe('Replaces the whole label set (see issues.addLabels / removeLabels)'),
  parentId: issueRef.nullable().optional().describe('Parent issue id or key; null detaches'),
  cycleId: id('cycleId').nullable().optional(),
  dueDate: isoDate().nullable().optional(),
  estimate: z.number().min(0).max(10_000).nullable().optional(),
  slaMinutes: int(1).nullable().optional(),
  expectedOutput: z.string().max(10_000).nullable().optional(),
  verificationChecklist: checklist.optional(),
  artifactRequired: z.boolean().optional(),
  queued: z.boolean().optional().describe('In the dispatch pool or not, as issues.queue'),
};
const updateInput = z.strictObject({ id: issueRef, ...updateFields });

/** The filters of issues.list, also those of issues.count (one SQL builds both: app_hidden.issues_filter). */
const listFilters = {
  query: z.string().trim().min(1).max(200).optional().describe('Search words; the last one matches as a prefix ("dep" finds "deploy")'),
  status: z.string().min(1).max(100).optional(),
  statusId: id('statusId').optional(),
  open: z.boolean().optional().describe('true: only issues not in a DONE/CANCELED status; false: only those'),
  // A list here is the caller meaning `priorities`: say so rather than only listing the five values.
  priority: z.enum(priority.options, { error: (issue) => (Array.isArray(issue.input) ? 'one priority; for any of several, use priorities' : undefined) }).optional(),
  priorities: z.array(priority).min(1).max(5).optional(),
  projectId: id('projectId').nullable().optional(),
  assignedAgentId: id('assignedAgentId').nullable().optional(),
  cycleId: id('cycleId').nullable().optional(),
  parentId: issueRef.nullable().optional().describe('Sub-issues of this issue (id or key); null = top-level issues'),
  claimedById: id('claimedById').nullable().optional(),
  labelIds: z.array(id('labelIds')).max(50).optional(),
  queued: z.boolean().optional(),
};

/** Exactly one of agentId / profileKey. */
const oneAgent = (v: { agentId?: string; profileKey?: string }) => (v.agentId === undefined) !== (v.profileKey === undefined);

export const issueTools = defineTools(
  tool({
    name: 'issues.create',
    scopes: ['WRITE_ISSUES'],
    description: 'Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.',
    input: createInput,
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.createMany',
    scopes: ['WRITE_ISSUES'],
    description: 'Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.',
    input: z.strictObject({ items: z.array(createInput).min(1).max(100) }),
    output: z.object({ items: z.array(IssueFullOut) }),
  }),
  tool({
    name: 'issues.get',
    scopes: ['READ_ISSUES'],
    description: 'One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds full (what a write answers: description, labels, slaMinutes, expectedOutput, verificationChecklist, artifactRequired, creator, startedAt, completedAt), description, labels, comments (newest first; true = 20, or {limit} up to 100; commentCount says how many there are in all), attachments, relations and currentRun (the open agent run).',
    input: z.strictObject({
      id: issueRef,
      include: z.strictObject({
        full: z.boolean().optional(),
        description: z.boolean().optional(),
        labels: z.boolean().optional(),
        comments: z.union([z.boolean(), z.strictObject({ limit: limit(20, 100) })]).optional(),
        attachments: z.boolean().optional(),
        relations: z.boolean().optional(),
        currentRun: z.boolean().optional(),
      }).optional(),
    }),
    output: IssueWithIncludesOut,
    readOnly: true,
  }),
  tool({
    name: 'issues.list',
    scopes: ['READ_ISSUES'],
    description: 'Issues newest first, paged ({items, nextCursor}). query: full-text search of title and description (every word, the last as a prefix), best match first (title before description). Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, priorities (any of), projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any of), queued (stays after assignment: the dispatch pool is queued true, assignedAgentId null, open true).',
    input: z.strictObject({ ...listFilters, limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(IssueOut),
    readOnly: true,
  }),
  tool({
    name: 'issues.count',
    scopes: ['READ_ISSUES'],
    description: "Count what issues.list's filters select: total, byStatus [{statusId, name, category, count}], byPriority.",
    input: z.strictObject(listFilters),
    output: z.object({
      total: z.number(),
      byStatus: z.array(z.looseObject({ statusId: z.string(), name: z.string(), category: statusCategory, count: z.number() })),
      byPriority: z.array(z.object({ priority, count: z.number() })),
    }),
    readOnly: true,
  }),
  tool({
    name: 'issues.children',
    scopes: ['READ_ISSUES'],
    description: 'Sub-issues of an issue, oldest first, paged.',
    input: z.strictObject({ id: issueRef, limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(IssueOut),
    readOnly: true,
  }),
  tool({
    name: 'issues.history',
    scopes: ['READ_ISSUES'],
    description: "An issue's events and its comments', newest first, paged, as events.recent.",
    input: z.strictObject({ id: issueRef, limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(EventOut),
    readOnly: true,
  }),
  tool({
    name: 'issues.update',
    scopes: ['WRITE_ISSUES'],
    description: 'Change fields of an issue: only the fields given change; null clears a nullable field; labelIds replaces the label set. Writes ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_UPDATED for what really changed. Returns the full issue.',
    input: updateInput,
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.updateMany',
    scopes: ['WRITE_ISSUES'],
    description: 'Apply up to 100 issues.update patches ({id, ...fields}) in one call, all or nothing. A failing item fails the whole call and names its field as items.N.field. Returns the lean issues.',
    input: z.strictObject({ items: z.array(updateInput).min(1).max(100) }),
    output: z.object({ items: z.array(IssueOut) }),
  }),
  tool({
    name: 'issues.delete',
    scopes: ['WRITE_ISSUES'],
    description: 'Delete an issue (soft: it disappears from reads and lists but is kept for audit; ISSUE_DELETED). Open agent runs on it are abandoned; its sub-issues become top-level (parentId null, ISSUE_UPDATED each).',
    input: z.strictObject({ id: issueRef }),
    output: z.object({ ok: z.boolean(), id: z.string(), key: z.string(), deleted: z.boolean() }),
  }),
  tool({
    name: 'issues.restore',
    scopes: ['WRITE_ISSUES'],
    description: 'Undo issues.delete (any time): comments, labels, watchers, relations and the sub-issues it detached come back (ISSUE_RESTORED); runs stay closed; 409 if live.',
    input: z.strictObject({ id: issueRef }),
    output: IssueFullOut,
    destructive: false,
    idempotent: false,
  }),
  tool({
    name: 'issues.queue',
    scopes: ['WRITE_ISSUES'],
    description: 'Put an issue in the dispatch pool (queued = true; ISSUE_QUEUED). Pass queued: false to take it out again.',
    input: z.strictObject({ id: issueRef, queued: z.boolean().default(true) }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.transition',
    scopes: ['WRITE_ISSUES'],
    description: 'Move an issue to another status: statusId (from statuses.list), or status, its name (case-insensitive, e.g. Done), for a key that does not list statuses. Any status may move to any other.',
    input: z.strictObject({
      id: issueRef, statusId: id('statusId').optional(),
      status: z.string().min(1).max(100).optional().describe('The status by name, instead of statusId'),
    }).refine((a) => (a.statusId === undefined) !== (a.status === undefined), { message: 'give exactly one of statusId or status', path: ['statusId'] }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.claim',
    requiresUser: 'person',
    scopes: ['WRITE_ISSUES'],
    description: "Claim an issue for the key's user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it (never shortens it; ISSUE_UPDATED changes claimExpiresAt); another user's unexpired claim is 409 already_claimed. A claim is a person's: an agent key takes work by assignment (403 person_required).",
    input: z.strictObject({ id: issueRef, durationMinutes: z.number().int().min(1).max(10_080).optional().describe('Claim length, default 240 (4 h), max 7 days') }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.release',
    scopes: ['WRITE_ISSUES'],
    description: "Clear the human claim on an issue. Your own claim (a person's key: an agent's key is not the person who claimed), an expired claim, or anyone's for a workspace OWNER or ADMIN acting as a person (403 not_claimer otherwise).",
    input: z.strictObject({ id: issueRef }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.unassign',
    scopes: ['WRITE_ISSUES'],
    description: 'Take an issue from its agent: the agent\'s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives it back: while queued, the dispatcher does not hand it to that agent again. Not assigned: unchanged. Returns the full issue.',
    input: z.strictObject({ id: issueRef }),
    output: IssueFullOut,
    destructive: true, // ends the agent's open runs for good
    idempotent: true,
  }),
  tool({
    name: 'issues.assign',
    scopes: ['WRITE_ISSUES'],
    description: "Assign an agent (agentId or profileKey) to an issue. Opens an ACTIVE run for it (mode, default EXECUTE) and abandons the previous agent's open run; writes ISSUE_ASSIGNED and AGENT_ASSIGNED. Archived agents: 400; an agent whose keys cannot see the issue: 409 agent_cannot_see_issue.",
    input: z.strictObject({ id: issueRef, agentId: id('agentId').optional(), profileKey: profileKey.optional(), mode: runMode.optional() })
      .refine(oneAgent, { message: 'pass exactly one of agentId or profileKey', path: ['agentId'] }),
    output: IssueFullOut.extend({ currentRun: RunOut.nullable() }),
   destructive: true, // abandons the previous agent's open run
  }),
  tool({
    name: 'issues.reassign',
    scopes: ['WRITE_ISSUES'],
    description: 'Hand an issue off to another agent in one step: posts the comment "Handoff → @<profileKey>: <rationale>", swaps the assignee, opens the new agent\'s run and writes AGENT_ASSIGNED (reason handoff). 400 for an archived or the same agent; 409 agent_cannot_see_issue if its keys cannot see the issue; rationale at least 10 characters.',
    input: z.strictObject({
      issueId: issueRef,
      toProfileKey: profileKey,
      rationale: z.string().trim().min(10, 'rationale must be at least 10 characters').max(10_000),
      mode: runMode.optional(),
    }),
    output: IssueFullOut.extend({ handoffCommentId: z.string(), currentRun: RunOut.nullable() }),
  }),
  tool({
    name: 'issues.assigned',
    scopes: ['READ_ISSUES'],
    description: "Issues assigned to an agent (agentId or profileKey; neither: the key's own agent, 400 if none): open ones and closed ones with its run still open (includeClosed: all), each with openRunId (its open run or null). Paged like issues.list.",
    input: z.strictObject({
      agentId: id('agentId').optional(),
      profileKey: profileKey.optional(),
      includeClosed: z.boolean().optional().describe('Also issues in DONE/CANCELED statuses'),
      limit: limit(50, 200),
      cursor: cursor.optional(),
    }).refine((v) => v.agentId === undefined || v.profileKey === undefined, { message: 'pass at most one of agentId or profileKey', path: ['agentId'] }),
    output: page(IssueOut.extend({ openRunId: z.string().nullable().describe("The agent's open run on the issue (runs.*, comments.upsertStatus report on it)") })),
    readOnly: true,
  }),
  tool({
    name: 'issues.addLabels',
    scopes: ['WRITE_ISSUES'],
    description: 'Add labels to an issue (labels already on it are left alone). Returns the full issue.',
    input: z.strictObject({ id: issueRef, labelIds: z.array(id('labelIds')).min(1).max(50) }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.removeLabels',
    scopes: ['WRITE_ISSUES'],
    description: 'Remove labels from an issue (labels not on it are ignored). Returns the full issue.',
    input: z.strictObject({ id: issueRef, labelIds: z.array(id('labelIds')).min(1).max(50) }),
    output: IssueFullOut,
  }),
  tool({
    name: 'issues.watch',
    requiresUser: 'userOrAgent',
    scopes: ['READ_ISSUES'],
    description: "Watch an issue: as the key's linked agent when it has one, else as its user. Idempotent.",
    input: z.strictObject({ issueId: issueRef }),
    output: z.object({ issueId: z.string(), watching: z.boolean(), watcher: z.object({ type: z.enum(['user', 'agent']), id: z.string() }) }),
  }),
  tool({
    name: 'issues.unwatch',
    requiresUser: 'userOrAgent',
    scopes: ['READ_ISSUES'],
    description: "Stop watching an issue (removes only the caller's own watch). Idempotent.",
    input: z.strictObject({ issueId: issueRef }),
    output: z.object({ issueId: z.string(), watching: z.boolean() }),
  }),
  tool({
    name: 'issues.listWatchers',
    scopes: ['READ_ISSUES'],
    description: 'Who watches an issue: users ({id, name, email}) and agents ({id, profileKey, name}), oldest first, paged.',
    input: z.strictObject({ issueId: issueRef, limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(WatcherOut),
    readOnly: true,
  }),
  tool({
    name: 'issues.listWatching',
    requiresUser: 'userOrAgent',
    scopes: ['READ_ISSUES'],
    description: "Issues the caller watches (its linked agent's watches, else its user's), newest first, paged.",
    input: z.strictObject({ limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(IssueOut),
    readOnly: true,
  }),
);
