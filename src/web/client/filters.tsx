import { refocus } from './a11y.tsx';
import type { Filters, Meta } from './data.ts';
import { currentCycle, PRIORITIES } from './data.ts';

interface Props { meta: Meta; filters: Filters; onChange(f: Filters): void }

function Select(props: { name: keyof Filters; label: string; value?: string; onPick(v?: string): void; options: [string, string][] }) {
  return (
    <label class="filter">
      <span>{props.label}</span>
      {/* Named in its own case: the label's CSS capitals were its name ("PROJECT"). */}
      <select name={props.name} aria-label={props.label} value={props.value ?? ''} onChange={(e) => props.onPick((e.target as HTMLSelectElement).value || undefined)}>
        <option value="">Any</option>
        {props.options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
        {/* A value from the address that names nothing here (#/board?priority=BOGUS) is shown, so it can be cleared. */}
        {props.value && !props.options.some(([v]) => v === props.value) && <option value={props.value}>{props.value} (unknown)</option>}
      </select>
    </label>
  );
}

/** Project, label, assignee (people and agents), priority and cycle (the current sprint first). */
export function FilterBar({ meta, filters, onChange }: Props) {
  const set = (k: keyof Filters) => (v?: string) => onChange({ ...filters, [k]: v });
  const current = currentCycle(meta);
  const cycles: [string, string][] = [
    ...(current ? [[current.rowId, `Current sprint (${current.name})`] as [string, string]] : []),
    ...meta.cycles.filter((c) => c !== current).map((c) => [c.rowId, `${c.name} (${c.startsOn} – ${c.endsOn})`] as [string, string]),
  ];
  return (
    <div class="filters" role="group" aria-label="Filters">
      <Select name="project" label="Project" value={filters.project} onPick={set('project')} options={meta.projects.map((p) => [p.rowId, p.name])} />
      <Select name="label" label="Label" value={filters.label} onPick={set('label')} options={meta.labels.map((l) => [l.rowId, l.name])} />
      <Select name="assignee" label="Assignee" value={filters.assignee} onPick={set('assignee')} options={[
        ['none', 'Nobody'],
        ...meta.users.map((u) => [`user:${u.rowId}`, u.name || u.email] as [string, string]),
        ...meta.agents.map((a) => [`agent:${a.rowId}`, `Agent: ${a.name}`] as [string, string]),
      ]} />
      <Select name="priority" label="Priority" value={filters.priority} onPick={set('priority')} options={PRIORITIES.map((p) => [p, p])} />
      <Select name="cycle" label="Cycle" value={filters.cycle} onPick={set('cycle')} options={cycles} />
      {/* Clear goes once nothing is filtered: the focus goes back to the first filter rather than to <body>. */}
      {Object.values(filters).some(Boolean) && <button type="button" class="link" onClick={() => { onChange({}); refocus('.filters select'); }}>Clear</button>}
    </div>
  );
}
