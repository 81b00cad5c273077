package teamsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/cairn-dev/cairn/vault/note"
)

// Merged is the outcome of merging one note changed on both sides.
type Merged struct {
	// Content is the note to keep in place: both sides' changes when they
	// merged cleanly; else ours, with the frontmatter merged as far as it
	// could be.
	Content []byte
	// Conflict: the same lines (or the same frontmatter key) changed on
	// both sides. Content then keeps ours, and the caller keeps theirs
	// whole beside it as a conflict copy: nothing is lost, and no
	// conflict marker is ever written into a note.
	Conflict bool
	// Why names what conflicted, for the sync's report.
	Why string
}

// unionKeys are the frontmatter lists whose changes on both sides merge
// as a union (ours first, then what theirs added) instead of conflicting:
// tags, aliases, and the links to a note's conflict copies; so do list
// properties of links (linkList).
var unionKeys = []string{"tags", "aliases", note.ConflictsKey}

// MergeNote merges a note changed on both sides since base (nil when
// both sides created it). The body merges line by line as git does
// (git merge-file); the frontmatter key by key: a key changed on one side
// takes that change, on both sides the same way is kept, tags, aliases and
// lists of links changed both ways become their union, and anything else
// changed both ways is a conflict.
func MergeNote(ctx context.Context, path string, base, ours, theirs []byte) (Merged, error) {
	o, t := note.Parse(path, ours), note.Parse(path, theirs)
	b := note.Parse(path, base)
	if o.FrontmatterError() != nil || t.FrontmatterError() != nil || b.FrontmatterError() != nil {
		// A frontmatter that is not YAML merges as plain text.
		text, clean, err := mergeText(ctx, base, ours, theirs)
		if err != nil || clean {
			return Merged{Content: text}, err
		}
		return Merged{Content: ours, Conflict: true, Why: "the same lines changed on both sides"}, nil
	}
	body, clean, err := mergeText(ctx, b.Body, o.Body, t.Body)
	if err != nil {
		return Merged{}, err
	}
	var why []string
	if !clean {
		body = o.Body
		why = append(why, "the same lines changed on both sides")
	}
	conflicts, err := mergeFrontmatter(o, b, t)
	if err != nil {
		return Merged{}, err
	}
	for _, k := range conflicts {
		why = append(why, fmt.Sprintf("frontmatter %q changed on both sides", k))
	}
	o.Body = body
	m := Merged{Content: o.Render(), Conflict: len(why) > 0}
	if m.Conflict {
		m.Why = joinWhy(why)
	}
	return m, nil
}

func joinWhy(why []string) string {
	out := why[0]
	for _, w := range why[1:] {
		out += "; " + w
	}
	return out
}

// mergeFrontmatter brings theirs' frontmatter changes into o (ours), and
// returns the keys changed both ways that it left as ours.
func mergeFrontmatter(o, b, t *note.Note) ([]string, error) {
	ov, err := o.FrontmatterValues()
	if err != nil {
		return nil, err
	}
	bv, err := b.FrontmatterValues()
	if err != nil {
		return nil, err
	}
	tv, err := t.FrontmatterValues()
	if err != nil {
		return nil, err
	}
	var keys []string
	for k := range tv {
		keys = append(keys, k)
	}
	for k := range bv {
		if _, ok := tv[k]; !ok {
			keys = append(keys, k) // deleted by theirs
		}
	}
	slices.Sort(keys)
	var conflicts []string
	for _, k := range keys {
		bVal, inB := bv[k]
		oVal, inO := ov[k]
		tVal, inT := tv[k]
		switch {
		case inO == inT && reflect.DeepEqual(oVal, tVal):
			// The same on both sides.
		case inO == inB && reflect.DeepEqual(oVal, bVal):
			// Only theirs changed it: take theirs.
			if !inT {
				if err := o.DeleteKey(k); err != nil {
					return nil, err
				}
			} else if err := o.SetKey(k, t.KeyNode(k)); err != nil {
				return nil, err
			}
		case inT == inB && reflect.DeepEqual(tVal, bVal):
			// Only ours changed it: keep ours.
		case slices.Contains(unionKeys, k) || (linkList(oVal) && linkList(tVal)):
			if err := o.SetList(k, union(listOf(oVal), listOf(tVal))); err != nil {
				return nil, err
			}
		default:
			conflicts = append(conflicts, k)
		}
	}
	return conflicts, nil
}

// linkList: a list property of links (a typed link property such as
// `related: ["[[A]]", "[[B]]"]`), which merges as a union too: two clones
// linking the same note each add their link.
func linkList(v any) bool {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return false
	}
	for _, e := range l {
		if s, ok := e.(string); !ok || !note.IsLinkText(s) {
			return false
		}
	}
	return true
}

// listOf reads a frontmatter list (or a single value) as strings.
func listOf(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	default:
		return []string{fmt.Sprint(x)}
	}
}

// union is a followed by what b holds that a does not, in b's order.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// mergeText merges three texts line by line with git's own merge
// (git merge-file). clean is false when the same lines changed on both
// sides; the text is then ours.
func mergeText(ctx context.Context, base, ours, theirs []byte) (text []byte, clean bool, err error) {
	if bytes.Equal(ours, theirs) || bytes.Equal(base, theirs) {
		return ours, true, nil
	}
	if bytes.Equal(base, ours) {
		return theirs, true, nil
	}
	dir, err := os.MkdirTemp("", "cairn-merge-")
	if err != nil {
		return nil, false, fmt.Errorf("merge: %w", err)
	}
	defer os.RemoveAll(dir)
	files := []string{filepath.Join(dir, "ours"), filepath.Join(dir, "base"), filepath.Join(dir, "theirs")}
	for i, data := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(files[i], data, 0o600); err != nil {
			return nil, false, fmt.Errorf("merge: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"merge-file", "-p", "--"}, files...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.Bytes(), true, nil
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		return ours, false, nil // that many conflicts
	default:
		return nil, false, fmt.Errorf("git merge-file: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
}
