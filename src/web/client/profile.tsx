// Who is signed in (the header), and "Your profile": the name shown on the person's work and the IANA time zone
// their "today" is counted in (notes.todayJournal). Saved with GraphQL viewerUpdate, which only the person's own
// PERSONAL or SESSION key may call, holding WRITE_USERS (FULL holds it; sql/workspace/users.sql): for a key without
// it the dialog shows the profile read-only and says why. docs/decisions.md, "A person's profile".
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { gql, type GraphqlError } from './api.ts';
import { may, type Meta, type Viewer } from './data.ts';
import { plainIssue, writeFailed } from './hooks.ts';

/** Why a key without WRITE_USERS gets the profile read-only (viewerUpdate would be 403 scope_required). */
export const PROFILE_READ_ONLY = 'This key cannot change your profile: it lacks the WRITE_USERS scope.';

const SAVE = `mutation SaveProfile($name: String, $timezone: String) {
  viewerUpdate(input: {name: $name, timezone: $timezone}) { user { rowId name timezone } } }`;

/** The fields the form shows a 400's reasons next to (the service's `issues` keys). */
const FIELDS = ['name', 'timezone'] as const;
type Field = (typeof FIELDS)[number];

/** The zones this browser knows, sorted, with the saved one and UTC (which Chromium leaves out of the list). */
function knownZones(saved: string): string[] {
  let all: string[] = [];
  try {
    all = Intl.supportedValuesOf('timeZone');
  } catch {
    // A browser without the list: the zone is typed (the service says whether it knows it).
  }
  return [...new Set([saved, 'UTC', ...all])].filter(Boolean).sort();
}

/** The zone this browser runs in (what "Use this browser's zone" puts in the field). */
const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
};

/**
 * The header's button naming the signed-in person (their email in its tooltip), which opens "Your profile". Shown
 * for a person's own key only (a plugin key acts for the workspace, and viewerUpdate refuses it).
 */
export function Who({ meta, onSaved }: { meta: Meta; onSaved(): Promise<void> }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const v = meta.viewer;
  if (!v || (meta.keyKind !== 'PERSONAL' && meta.keyKind !== 'SESSION')) return null;
  return (
    <>
      <button id="profile" type="button" class="who" ref={opener} title={v.email} aria-haspopup="dialog" aria-expanded={open}
        onClick={() => setOpen(true)}>
        <span class="sr-only">Your profile: </span><bdi>{v.name || v.email}</bdi>
      </button>
      {open && <ProfileDialog viewer={v} editable={may(meta, 'WRITE_USERS')} onSaved={onSaved}
        onClosed={() => { setOpen(false); opener.current?.focus(); }} />}
    </>
  );
}

/**
 * A modal <dialog> (the rest of the page is inert while it is open, so Tab stays in it): the name field has the
 * focus when it opens; Escape or Cancel close it without saving, Save closes it once saved and the page shows the new
 * name; the focus goes back to the header's button either way. A refusal's reasons show under their fields. A blank
 * name is said there without being sent. For a key that may not save (`editable` false: no WRITE_USERS) the fields
 * are read-only, a line says why, and there is no Save (Close instead of Cancel).
 */
function ProfileDialog({ viewer, editable, onSaved, onClosed }: { viewer: Viewer; editable: boolean; onSaved(): Promise<void>; onClosed(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const fields = { name: useRef<HTMLInputElement>(null), timezone: useRef<HTMLInputElement>(null) };
  const [name, setName] = useState(viewer.name);
  const [zone, setZone] = useState(viewer.timezone);
  const [issues, setIssues] = useState<Partial<Record<Field, string>>>({});
  const [problem, setProblem] = useState<string>();
  const [saving, setSaving] = useState(false);
  const zones = useMemo(() => knownZones(viewer.timezone), [viewer.timezone]);
  const here = useMemo(browserZone, []);

  useEffect(() => {
    const d = dialog.current!;
    d.showModal();
    fields.name.current?.select();
    return () => { if (d.open) d.close(); };
  }, []);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!editable) return; // nothing to send: the service would refuse it (no Save is shown; Enter lands here)
    // Only what was changed is sent (omitted fields stay): a name changed in another tab meanwhile is kept.
    const changes: Partial<Record<Field, string>> = {};
    if (name !== viewer.name) changes.name = name;
    if (zone.trim() !== viewer.timezone) changes.timezone = zone.trim();
    setIssues({});
    setProblem(undefined);
    // A blank name is said next to its field, not sent (the service would refuse it).
    if (changes.name !== undefined && !changes.name.trim()) {
      setIssues({ name: 'A name cannot be empty.' });
      fields.name.current?.focus();
      return;
    }
    if (!Object.keys(changes).length) {
      dialog.current?.close();
      return;
    }
    setSaving(true);
    try {
      await gql(SAVE, changes);
      await onSaved();
      dialog.current?.close();
    } catch (err) {
      const g = err as GraphqlError;
      // In plain words ("A name cannot be empty."); the zone's reason already is ("unknown time zone …").
      const mine = Object.fromEntries(Object.entries(g.issues ?? {}).filter(([k]) => (FIELDS as readonly string[]).includes(k))
        .map(([k, why]) => [k, k === 'name' ? plainIssue(k, why) : why])) as Partial<Record<Field, string>>;
      setIssues(mine);
      if (!Object.keys(mine).length) setProblem(writeFailed(g).text);
      const first = FIELDS.find((f) => mine[f]);
      if (first) fields[first].current?.focus();
    } finally {
      setSaving(false);
    }
  };

  const described = (f: Field, hint?: string) =>
    [editable ? undefined : 'profile-readonly', hint, issues[f] ? `profile-${f}-error` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <dialog id="profile-dialog" ref={dialog} aria-labelledby="profile-title" onClose={onClosed}>
      <form onSubmit={save} noValidate>
        <h2 id="profile-title">Your profile</h2>
        <p class="meta">Signed in as <span id="profile-email">{viewer.email}</span></p>
        {!editable && <p class="hint" id="profile-readonly">{PROFILE_READ_ONLY}</p>}
        <label for="profile-name">Name</label>
        <input id="profile-name" ref={fields.name} type="text" autocomplete="name" dir="auto" value={name} readOnly={!editable}
          aria-invalid={issues.name ? true : undefined} aria-describedby={described('name', 'profile-name-hint')}
          onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <span class="hint" id="profile-name-hint">Shown on your work in each of your workspaces (one line, up to 100 characters).</span>
        {issues.name && <span class="field-error" id="profile-name-error">{issues.name}</span>}
        <label for="profile-timezone">Time zone</label>
        <input id="profile-timezone" ref={fields.timezone} type="text" list={editable ? 'profile-zones' : undefined} autocomplete="off" spellcheck={false} value={zone}
          readOnly={!editable}
          aria-invalid={issues.timezone ? true : undefined} aria-describedby={described('timezone', 'profile-timezone-hint')}
          onInput={(e) => setZone((e.target as HTMLInputElement).value)} />
        <datalist id="profile-zones">{zones.map((z) => <option key={z} value={z} />)}</datalist>
        <span class="hint" id="profile-timezone-hint">An IANA zone such as Europe/Paris: your notes' "today" is counted in it.</span>
        {issues.timezone && <span class="field-error" id="profile-timezone-error">{issues.timezone}</span>}
        {here && editable && (
          <button type="button" class="link" id="profile-browser-zone" disabled={zone === here}
            onClick={() => { setZone(here); fields.timezone.current?.focus(); }}>
            Use this browser's zone ({here})
          </button>
        )}
        <p class="error" id="profile-error" role="alert">{problem ?? (Object.keys(issues).length ? 'Not saved: see the fields above.' : '')}</p>
        <div class="actions">
          {editable && <button type="submit" id="profile-save" disabled={saving}>{saving ? 'Saving…' : 'Save'}</button>}
          <button type="button" id="profile-cancel" onClick={() => dialog.current?.close()}>{editable ? 'Cancel' : 'Close'}</button>
        </div>
      </form>
    </dialog>
  );
}
