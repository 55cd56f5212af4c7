// Controls that write when a person means it. A closed <select> changes its value on every arrow key (Chromium
// fires `change` each time), so a keyboard user moving from Backlog to In Review saved Todo and In Progress on the
// way (three ISSUE_STATUS_CHANGED, and on the agent select a run opened and abandoned per agent passed). Here a
// value reached with the keyboard is held until Enter or leaving the select (Escape puts the saved one back); a
// value picked with the pointer (or from the open list) is written at once. While a write is under way the
// control shows what was chosen; once it settles it shows the saved value again (a refused write's choice goes
// at once, not at the next re-read).
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Keys by which a closed select moves to another option (arrows, Home/End, page keys, typing an option's name). */
const MOVES = /^(Arrow(Up|Down|Left|Right)|Home|End|Page(Up|Down))$/;
const moves = (e: KeyboardEvent) => MOVES.test(e.key) || (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey);

export function CommitSelect(props: {
  id: string; value: string; disabled?: boolean; title?: string; label?: string;
  /** Writes the value; settles once the page shows the outcome (the write and its re-read, or the refusal). */
  onCommit(value: string): Promise<unknown>;
  children: ComponentChildren;
}) {
  const [pending, setPending] = useState<string>();
  const [sending, setSending] = useState<string>();
  // Set by a key that moves the selection, for the `change` that key fires (in the same task).
  const keyed = useRef(false);
  const commit = async (value: string) => {
    setPending(undefined);
    if (value === props.value && value !== '') return;
    if (value === '') return; // a placeholder option ("Assign an agent…") writes nothing
    setSending(value);
    try {
      await props.onCommit(value);
    } finally {
      setSending(undefined);
    }
  };
  const shown = sending ?? pending ?? props.value;
  // The select shows `shown`, also once the option chosen is gone: "Add a label…" was left on the label just added
  // (no longer an option, so nothing selected, value ""), and Preact, comparing the placeholder's "" with that "",
  // did not select the placeholder again; the next ArrowDown chose the placeholder, and Enter saved nothing.
  const select = useRef<HTMLSelectElement>(null);
  useLayoutEffect(() => {
    const el = select.current;
    if (el && (el.selectedIndex < 0 || el.value !== shown)) el.value = shown;
  });
  return (
    <>
      <select id={props.id} ref={select} value={shown} disabled={props.disabled} title={props.title} aria-label={props.label}
        aria-describedby={pending !== undefined ? `${props.id}-pending` : undefined}
        onKeyDown={(e) => {
          if (moves(e)) {
            keyed.current = true;
            setTimeout(() => { keyed.current = false; });
          } else if (e.key === 'Enter' && pending !== undefined) {
            e.preventDefault();
            void commit(pending);
          } else if (e.key === 'Escape' && pending !== undefined) {
            e.preventDefault();
            setPending(undefined);
          }
        }}
        onChange={(e) => {
          const value = (e.target as HTMLSelectElement).value;
          if (keyed.current) setPending(value === props.value ? undefined : value);
          else void commit(value);
        }}
        onBlur={() => { if (pending !== undefined) void commit(pending); }}>
        {props.children}
      </select>
      {/* The select's description, not part of its name: a <label> around both read it twice ("Status Enter to save,
          Esc to undo", then again as the description). A description still reads a hidden element. */}
      {pending !== undefined && <span class="hint pending" id={`${props.id}-pending`} aria-hidden="true">Enter to save, Esc to undo</span>}
    </>
  );
}

/** A checkbox that writes on change and shows the saved state again once the write settles (refused or not). */
export function CommitCheckbox(props: { id: string; checked: boolean; disabled?: boolean; onCommit(checked: boolean): Promise<unknown> }) {
  const [sending, setSending] = useState<boolean>();
  return (
    <input id={props.id} type="checkbox" checked={sending ?? props.checked} disabled={props.disabled}
      onChange={async (e) => {
        const checked = (e.target as HTMLInputElement).checked;
        setSending(checked);
        try {
          await props.onCommit(checked);
        } finally {
          setSending(undefined);
        }
      }} />
  );
}
