/** Output shapes shared by several namespaces (the SQL shapers in migrations produce them). */
import { z } from 'zod';
import { priority, statusCategory, timestamp } from './define.ts';

const ref = z.object({ id: z.string(), name: z.string() });

export const WorkspaceOut = z.looseObject({
  id: z.string(), slug: z.string(), key: z.string(), name: z.string(),
  cycleLengthDays: z.number(), cycleCooldownDays: z.number(), timeTrackingEnabled: z.boolean(),
  attachmentQuotaMb: z.number(), requiredAckSeconds: z.number(), autoDispatch: z.boolean(),
  autoDispatchMode: z.enum(['ROUND_ROBIN', 'PRIORITY_MATCH', 'CAPABILITY_MATCH', 'MANUAL_ONLY']),
});

export const StatusOut = z.looseObject({
  id: z.string(), name: z.string(), category: statusCategory, color: z.string(), position: z.number(), isDefault: z.boolean(),
});

export const AgentOut = z.looseObject({
  id: z.string(), profileKey: z.string(), name: z.string(), status: z.enum(['ONLINE', 'BUSY', 'OFFLINE']),
  runtimeMode: z.string(), provider: z.string(), capabilities: z.array(z.string()),
  lastHeartbeatAt: timestamp.nullable(), archivedAt: timestamp.nullable(),
  runtime: z.object({ id: z.string(), name: z.string(), kind: z.string() }).nullable(),
});

export const LabelRefOut = z.looseObject({ id: z.string(), name: z.string(), color: z.string() });

export const IssueOut = z.looseObject({
  id: z.string(), key: z.string(), number: z.number(), title: z.string(), priority,
  statusId: z.string(), status: z.object({ id: z.string(), name: z.string(), category: statusCategory }),
  projectId: z.string().nullable(), project: ref.nullable(),
  assignedAgentId: z.string().nullable(),
  assignedAgent: z.object({ id: z.string(), profileKey: z.string(), name: z.string() }).nullable(),
  claimedById: z.string().nullable(), claimExpiresAt: timestamp.nullable(), queued: z.boolean(),
  labelIds: z.array(z.string()), createdAt: timestamp, updatedAt: timestamp,
  description: z.string().nullable().optional(),
  labels: z.array(LabelRefOut).optional(),
});

export const EventOut = z.looseObject({
  id: z.string(), kind: z.string(), subjectType: z.string(), subjectId: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()), createdAt: timestamp,
  actor: z.object({ id: z.string(), name: z.string(), image: z.string().nullable() }).loose().nullable().optional(),
});
