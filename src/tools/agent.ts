import { z } from 'zod';
import { defineTools, engagementMode, id, issueRef, tool } from './define.ts';
import { ChatMessageOut, ChatThreadOut } from './chat.ts';
import { AgentOut, AttachmentOut, ChecklistItemOut, CommentOut, IssueFullOut, IssueRefOut, RelationOut, RunOut, WorkspaceOut } from './shapes.ts';

const RunProtocolOut = z.looseObject({
  contractVersion: z.string(), runId: z.string().nullable(), engagementMode,
  modeInstruction: z.string(), stepId: z.string().nullable().describe("A plan step's run: the step it works on"),
  protocolInstruction: z.string().describe('How to report on and finish this run (or what to do with no open run): follow it'), mayMutateIssue: z.boolean(),
});

const IssueBundleOut = z.looseObject({
  workspace: WorkspaceOut, issue: IssueFullOut, description: z.string().nullable(),
  comments: z.array(CommentOut).describe('The last 50, oldest first'),
  commentCount: z.number().int().describe('How many comments the issue has in all (comments.list pages through them)'), attachments: z.array(AttachmentOut), relations: z.array(RelationOut),
  currentRun: RunOut.nullable(),
  artifacts: z.array(z.looseObject({
    id: z.string(), runId: z.string(), agentId: z.string(), completedAt: z.string().nullable(),
    attachment: AttachmentOut.nullable(),
  })),
  completionContract: z.looseObject({
    engagementMode, expectedOutput: z.string().nullable(), verificationChecklist: z.array(ChecklistItemOut),
    artifactRequired: z.boolean(), requires: z.array(z.string()),
  }),
  runProtocol: RunProtocolOut, externalResources: z.array(z.unknown()),
});

const ThreadBundleOut = z.looseObject({
  workspace: WorkspaceOut, thread: ChatThreadOut, messages: z.array(ChatMessageOut).describe('The last 50, oldest first'),
  messageCount: z.number().int().describe('How many messages the thread has in all (chat.getThread pages through them)'), agent: AgentOut,
  linkedIssues: z.array(IssueRefOut),
});

export const agentContextTools = defineTools(
  tool({
    name: 'agent.context.bundle',
    scopes: ['READ_ISSUES'],
    description: "Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first) and commentCount (all there are), attachments, relations, currentRun (the caller's own open run, else the issue's), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, stepId, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50) and messageCount, agent, linkedIssues (issues named in the messages' context). Exactly one of issueId or threadId.",
    input: z.strictObject({ issueId: issueRef.optional(), threadId: id('threadId').optional() })
      .refine((a) => (a.issueId === undefined) !== (a.threadId === undefined), { message: 'give exactly one of issueId or threadId', path: ['issueId'] }),
    output: z.union([IssueBundleOut, ThreadBundleOut]),
    readOnly: true,
  }),
);
