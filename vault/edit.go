package vault

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/gitstore"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

// Edit operations of edit_note.
const (
	OpAppend         = "append"
	OpPrepend        = "prepend"
	OpReplace        = "replace"
	OpReplaceSection = "replaceSection"
	OpFindReplace    = "findReplace"
)

// EditArgs are edit_note's arguments.
type EditArgs struct {
	Ref          string
	VersionToken string
	Operation    string
	Content      *string
	Heading      string
	Find         string
}

// EditNote changes a note's body by words, not positions, if and only if
// versionToken is the note's current one. The frontmatter is kept byte for
// byte, but for an id added if the file had none and typed links moved
// out of a legacy links: list (note.MigrateLinks).
func (v *Vault) EditNote(c access.Caller, a EditArgs) (*Written, error) {
	if a.VersionToken == "" {
		return nil, argErr("versionToken", "is required: take it from get_note (compare-and-swap protects others' changes)")
	}
	if !isHex40(a.VersionToken) {
		return nil, argErr("versionToken", "%q is not a versionToken (40 hex digits from get_note)", a.VersionToken)
	}
	if a.Content == nil {
		return nil, argErr("content", "is required for %s", a.Operation)
	}
	if err := checkBody("content", *a.Content); err != nil {
		return nil, err
	}
	switch a.Operation {
	case OpAppend, OpPrepend, OpReplace:
		if a.Heading != "" || a.Find != "" {
			return nil, argErr("operation", "%s takes only content (heading and find belong to replaceSection and findReplace)", a.Operation)
		}
	case OpReplaceSection:
		if strings.TrimSpace(a.Heading) == "" {
			return nil, argErr("heading", "is required for replaceSection")
		}
	case OpFindReplace:
		if a.Find == "" {
			return nil, argErr("find", "is required for findReplace (the exact excerpt to replace)")
		}
		if err := validText("find", a.Find); err != nil {
			return nil, err
		}
	default:
		return nil, argErr("operation", "%q is not one of append, prepend, replace, replaceSection, findReplace", a.Operation)
	}
	p, cur, data, err := v.forWrite(c, a.Ref, a.VersionToken)
	if err != nil {
		return nil, err
	}
	n := note.Parse(p, data)
	if err := n.FrontmatterError(); err != nil {
		return nil, fmt.Errorf("%s: the frontmatter is not valid YAML (%v); fix it in an editor first", p, err)
	}
	v.adoptID(n)
	body, err := applyEdit(string(n.Body), a)
	if err != nil {
		return nil, err
	}
	oldTitle := note.TitleOf(n.Body)
	newTitle := note.TitleOf([]byte(body))
	if oldTitle != "" && newTitle != oldTitle {
		if newTitle == "" {
			return nil, argErr("content", "the edit would remove the note's leading '# %s' title line", oldTitle)
		}
		return nil, argErr("content", "the edit would change the title from %q to %q; titles change with rename_note, which keeps the old one as an alias so links still resolve", oldTitle, newTitle)
	}
	if len(body) > MaxNoteBytes {
		return nil, argErr("content", "the note would be %d bytes; a note holds at most %d bytes", len(body), MaxNoteBytes)
	}
	// A write moves typed links out of the legacy links: list; an edit
	// that changes nothing stays one.
	if body != string(n.Body) || !n.IDSaved {
		n.MigrateLinks()
	}
	n.Body = []byte(body)
	if err := n.EnsureID(); err != nil {
		return nil, err
	}
	hash, err := v.commit(c, fmt.Sprintf("Edit %s (%s)", p, a.Operation), n.ID, []gitstore.Change{{
		Path: p, Content: n.Render(), CheckVersion: true, ExpectVersion: a.VersionToken, RequireClean: true,
	}})
	if errors.Is(err, gitstore.ErrNothingToCommit) {
		return &Written{ID: n.ID, Path: p, Title: n.Title, VersionToken: cur, Unchanged: true, Project: v.projectHandle(p)}, nil
	}
	if err != nil {
		return nil, v.writeErr(a.Ref, p, err)
	}
	return &Written{ID: n.ID, Path: p, Title: n.Title, VersionToken: hash, Project: v.projectHandle(p)}, nil
}

// forWrite is the common start of a write to an existing note: resolve the
// ref, check write access, commit any edit made on disk first, check the
// versionToken (when given) and read the file.
func (v *Vault) forWrite(c access.Caller, ref, versionToken string) (path, version string, content []byte, err error) {
	p, err := v.resolve(c, "ref", ref)
	if err != nil {
		return "", "", nil, err
	}
	if v.roleAt(c, p) < access.RoleWrite {
		return "", "", nil, fmt.Errorf("%w: you may read %s but not change it", ErrForbidden, p)
	}
	if err := v.flushHuman(p); err != nil {
		return "", "", nil, err
	}
	cur, ok, err := v.store.Version(p)
	if err != nil {
		return "", "", nil, err
	}
	if !ok {
		return "", "", nil, notFound("ref", fmt.Sprintf("no note %q is accessible", ref))
	}
	if versionToken != "" && versionToken != cur {
		return "", "", nil, &ConflictError{Ref: ref, Current: cur, Reason: "the note changed since that versionToken"}
	}
	data, err := readFileNoFollow(v.abs(p))
	if err != nil {
		return "", "", nil, fmt.Errorf("read %s: %w", p, err)
	}
	return p, cur, data, nil
}

// writeErr turns a lost compare-and-swap race into a ConflictError, and
// any other failure of a write into an error naming the path.
func (v *Vault) writeErr(ref, p string, err error) error {
	var ce *gitstore.ConflictError
	var de *gitstore.DirtyError
	switch {
	case errors.As(err, &ce):
		return &ConflictError{Ref: ref, Current: ce.Current, Reason: "the note changed at the same moment"}
	case errors.As(err, &de):
		if ferr := v.flushHuman(p); ferr != nil {
			return ferr
		}
		cur, _, _ := v.store.Version(p)
		return &ConflictError{Ref: ref, Current: cur, Reason: "the note was edited on disk at the same moment (that edit is now committed)"}
	}
	return fmt.Errorf("write %s: %w", p, err)
}

func (v *Vault) projectHandle(p string) string {
	if pr := v.projectSet().of(parentDir(p)); pr != nil {
		return pr.Handle
	}
	return ""
}

func applyEdit(body string, a EditArgs) (string, error) {
	content := *a.Content
	switch a.Operation {
	case OpReplace:
		return ensureNewline(content), nil
	case OpAppend:
		if content == "" {
			return "", argErr("content", "is empty: nothing to append")
		}
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		if body != "" && !strings.HasSuffix(body, "\n\n") {
			body += "\n"
		}
		return body + ensureNewline(content), nil
	case OpPrepend:
		if content == "" {
			return "", argErr("content", "is empty: nothing to prepend")
		}
		// After the title line, so the note keeps its title.
		lines := strings.SplitAfter(body, "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if _, ok := note.TitleLine(strings.TrimRight(l, "\r\n")); ok {
				head := strings.Join(lines[:i+1], "")
				if !strings.HasSuffix(head, "\n") {
					head += "\n"
				}
				rest := strings.TrimLeft(strings.Join(lines[i+1:], ""), "\n")
				return head + "\n" + ensureNewline(content) + sep(rest) + rest, nil
			}
			break
		}
		return ensureNewline(content) + sep(body) + body, nil
	case OpReplaceSection:
		return replaceSection(body, a.Heading, content)
	case OpFindReplace:
		n := strings.Count(body, a.Find)
		if n != 1 {
			return "", argErr("find", "occurs %d times in the note; it must occur exactly once (quote more of the text around it)", n)
		}
		return strings.Replace(body, a.Find, content, 1), nil
	}
	return "", argErr("operation", "%q is unknown", a.Operation)
}

func sep(rest string) string {
	if rest == "" {
		return ""
	}
	return "\n"
}

// replaceSection replaces what is under a heading (up to the next heading
// of the same or a higher level), keeping the heading line itself.
func replaceSection(body, heading, content string) (string, error) {
	want := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(heading), "#"))
	outline := note.Outline([]byte(body))
	var matches []int
	for i, h := range outline {
		if strings.EqualFold(h.Text, want) {
			matches = append(matches, i)
		}
	}
	switch len(matches) {
	case 0:
		var names []string
		for _, h := range outline {
			names = append(names, h.Text)
		}
		return "", argErr("heading", "no heading %q in the note (its headings: %s)", want, strings.Join(names, "; "))
	case 1:
	default:
		return "", argErr("heading", "%d headings are called %q; make the section unique first", len(matches), want)
	}
	h := outline[matches[0]]
	lines := strings.SplitAfter(body, "\n")
	start := h.Line // index of the line after the heading (0-based)
	if start-1 < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[start-1], " "), "#") && start < len(lines) {
		start++ // a setext heading: its underline (=== or ---) is part of it
	}
	end := len(lines)
	for _, o := range outline[matches[0]+1:] {
		if o.Level <= h.Level {
			end = o.Line - 1
			break
		}
	}
	head := strings.Join(lines[:start], "")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	tail := strings.Join(lines[end:], "")
	mid := ""
	if strings.TrimSpace(content) != "" {
		mid = "\n" + strings.Trim(content, "\n") + "\n"
	}
	if tail != "" {
		mid += "\n"
	}
	return head + mid + tail, nil
}
