/**
 * Plugin skills (spec scope INVOKE_SKILLS, events SKILL_INVOKED and PLUGIN_ERROR). A plugin declares its skills in
 * its manifest (GraphQL pluginsCreate / pluginsSetSkills: name, description, inputSchema); skills.invoke checks the
 * input against the skill's inputSchema and fires it as a SKILL_INVOKED event, which the plugin receives on the
 * stream or a webhook with its own key, does the work through the tools, and reports what failed as PLUGIN_ERROR.
 * Nothing waits for the plugin: an invocation is an event, delivered at least once (de-duplicate on invocationId).
 */
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { defineTools, id, issueRef, line, tool } from './define.ts';
import { zodIssues } from './invoke.ts';

const SkillOut = z.looseObject({
  pluginId: z.string(), plugin: z.string(), name: z.string(), description: z.string().nullable(),
  inputSchema: z.record(z.string(), z.unknown()).nullable(),
});

/** `input` checked against the skill's inputSchema (undefined when it has none). */
function checkSkillInput(skill: z.output<typeof SkillOut>, input: unknown) {
  if (!skill.inputSchema) return undefined;
  try {
    return z.fromJSONSchema(skill.inputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(input);
  } catch (err) {
    // A schema zod cannot read (e.g. a remote $ref), or one that refers to itself without end ({"$ref": "#"}, which
    // overflows zod's stack while it checks), cannot vouch for any input: the plugin must fix its manifest.
    throw new ApiError(409, { error: 'skill_schema_unreadable', message: `The skill's inputSchema cannot be used: ${(err as Error).message}` });
  }
}

export const pluginTools = defineTools(
  tool({
    name: 'skills.list',
    scopes: ['INVOKE_SKILLS'],
    description: 'The skills the workspace\'s plugins offer (their manifest.skills): plugin, name, description and the inputSchema skills.invoke checks input against.',
    input: z.strictObject({ pluginId: id('pluginId').optional() }),
    output: z.array(SkillOut),
    readOnly: true,
  }),
  tool({
    name: 'skills.invoke',
    scopes: ['INVOKE_SKILLS'],
    description: 'Fire a plugin skill: input (checked against the skill\'s inputSchema, 64 KB of JSON at most) goes to the plugin as a SKILL_INVOKED event (subject the plugin; issueId, when given, must be an issue you can see). Returns at once with the invocationId; the plugin acts through the tools and reports failures as PLUGIN_ERROR.',
    input: z.strictObject({
      pluginId: id('pluginId'),
      skill: line(64),
      input: z.record(z.string(), z.unknown()).default({})
        .refine((v) => JSON.stringify(v).length <= 65_536, 'input must be at most 64 KB of JSON'),
      issueId: issueRef.optional(),
    }),
    output: z.looseObject({ invocationId: z.string(), eventId: z.string(), pluginId: z.string(), skill: z.string(), issueId: z.string().nullable() }),
    sql: true,
    run: async (ctx, input) => {
      const skill = SkillOut.parse(await ctx.read('plugin_skill', { pluginId: input.pluginId, skill: input.skill }));
      const checked = checkSkillInput(skill, input.input);
      if (checked && !checked.success) {
        const issues = Object.fromEntries(Object.entries(zodIssues(checked.error)).map(([k, v]) => [k === 'input' ? k : `input.${k}`, v]));
        throw new ApiError(400, { error: 'invalid_input', message: `input does not match the inputSchema of ${skill.name}`, issues });
      }
      return ctx.sql(input);
    },
  }),
  tool({
    name: 'plugins.reportError',
    scopes: [],
    requiresPluginKey: true,
    description: 'For a plugin\'s own key (plugin.issueApiKey): report a runtime error of the plugin, e.g. a skill invocation it could not carry out (skill, invocationId). Recorded as PLUGIN_ERROR (subject the plugin; an invocationId must be one of this plugin\'s SKILL_INVOKED, else 404, and the error carries its issueId, so a narrowed key sees it only with that issue); other keys get 403 plugin_key_required.',
    input: z.strictObject({
      message: z.string().trim().min(1).max(2000),
      skill: line(64).optional(),
      invocationId: id('invocationId').optional(),
      details: z.record(z.string(), z.unknown()).optional()
        .refine((v) => v === undefined || JSON.stringify(v).length <= 16_384, 'details must be at most 16 KB of JSON'),
    }),
    output: z.looseObject({ eventId: z.string(), pluginId: z.string() }),
  }),
);
