package vault

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/access"
)

func handles(ps []ProjectAccess) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Handle+":"+p.Access)
	}
	return out
}

func TestMembershipsCeilingsAndNarrowing(t *testing.T) {
	v, dir := sampleVault(t)
	ps, _ := v.Projects(owner)
	if got := strings.Join(handles(ps), " "); got != "acme:write acme/launch:write acme/platform:write" {
		t.Fatalf("owner projects: %s", got)
	}
	ps, _ = v.Projects(camille)
	if got := strings.Join(handles(ps), " "); got != "acme:read acme/launch:write" {
		t.Fatalf("camille projects: %s", got)
	}
	readOwner := owner
	readOwner.Ceiling = access.RoleRead
	ps, _ = v.Projects(readOwner)
	if got := strings.Join(handles(ps), " "); got != "acme:read acme/launch:read acme/platform:read" {
		t.Fatalf("read token projects: %s", got)
	}
	narrow := owner
	narrow.Projects = []string{"acme/infra"} // an alias of acme/platform
	ps, _ = v.Projects(narrow)
	if got := strings.Join(handles(ps), " "); got != "acme/platform:write" {
		t.Fatalf("narrowed token projects: %s", got)
	}
	head := gitOut(t, dir, "rev-parse", "HEAD")
	// camille reads acme but may not write there; sam cannot even see it.
	if _, err := v.CreateNote(camille, CreateArgs{Project: "acme", Body: "# C"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("camille writing acme: %v", err)
	}
	if _, err := v.CreateNote(sam, CreateArgs{Project: "acme", Body: "# S"}); !IsNotFound(err) && !strings.Contains(err.Error(), "no project") {
		t.Fatalf("sam writing acme: %v", err)
	}
	if _, err := v.CreateNote(readOwner, CreateArgs{Project: "acme", Body: "# R"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("read ceiling writing: %v", err)
	}
	n, _ := v.GetNote(owner, "[[Acme overview]]", false, "")
	if _, err := v.EditNote(camille, EditArgs{Ref: n.ID, VersionToken: n.VersionToken, Operation: OpAppend, Content: str("x")}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("camille editing acme: %v", err)
	}
	if _, err := v.DeleteNote(readOwner, n.ID, ""); !errors.Is(err, ErrForbidden) {
		t.Fatalf("read ceiling deleting: %v", err)
	}
	unchanged(t, dir, head)
	// The alias handle works as a project argument.
	if w, err := v.CreateNote(owner, CreateArgs{Project: "acme/infra", Body: "# Via alias"}); err != nil || w.Project != "acme/platform" || !strings.HasPrefix(w.Path, "acme/infra/") {
		t.Fatalf("create via alias handle: %+v %v", w, err)
	}
}

func TestPrivateMemoryIsInvisibleToOthers(t *testing.T) {
	v, _ := sampleVault(t)
	mine, err := v.GetNote(owner, "people/owner/profile.md", false, "")
	if err != nil || mine.Class != ClassUserProfile {
		t.Fatalf("owner reads own profile: %v", err)
	}
	theirs, err := v.GetNote(camille, "people/camille/profile.md", false, "")
	if err != nil {
		t.Fatal(err)
	}
	missing := func(c access.Caller, ref string) string {
		_, err := v.GetNote(c, ref, false, "")
		if !IsNotFound(err) {
			t.Fatalf("%s reading %s: want not found, got %v", c.Principal, ref, err)
		}
		return strings.ReplaceAll(err.Error(), ref, "REF")
	}
	a := missing(owner, "people/camille/profile.md")
	b := missing(owner, theirs.ID)
	c := missing(camille, mine.ID)
	d := missing(camille, "No such note anywhere")
	if a != d || b != d || c != d {
		t.Fatalf("a forbidden note must look exactly like a missing one:\n%s\n%s\n%s\n%s", a, b, c, d)
	}
	// list_notes never shows personal domains.
	l, err := v.ListNotes(owner, ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if e.Path == "people" || strings.HasPrefix(e.Path, "people/") {
			t.Fatalf("list_notes shows %s", e.Path)
		}
	}
	// Memory notes are agent-memory; the owner sees their own.
	mem, err := v.ListNotes(owner, ListArgs{Path: "people/owner/memory"})
	if err == nil {
		t.Fatalf("list_notes of private memory must be refused, got %+v", mem)
	}
}

func TestListNotesPagesFoldersFirstAndFiltersByTag(t *testing.T) {
	v, _ := sampleVault(t)
	var all []string
	cursor := ""
	for {
		l, err := v.ListNotes(owner, ListArgs{Project: "acme/launch", Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Entries {
			all = append(all, e.Kind+":"+e.Path)
		}
		if l.NextCursor == "" {
			break
		}
		cursor = l.NextCursor
	}
	full, _ := v.ListNotes(owner, ListArgs{Project: "acme/launch", Limit: 500})
	var want []string
	for _, e := range full.Entries {
		want = append(want, e.Kind+":"+e.Path)
	}
	if !slices.Equal(all, want) || len(want) < 5 {
		t.Fatalf("paged %v\nfull %v", all, want)
	}
	if !strings.HasPrefix(want[0], "folder:acme/launch/decisions") {
		t.Fatalf("folders first: %v", want)
	}
	// A path returned by one call works as the next call's path.
	sub, err := v.ListNotes(owner, ListArgs{Project: "acme/launch", Path: "acme/launch/decisions"})
	if err != nil || len(sub.Entries) < 5 {
		t.Fatalf("subfolder: %v %+v", err, sub)
	}
	tagged, _ := v.ListNotes(owner, ListArgs{Project: "acme/launch", Tag: "pricing"})
	for _, e := range tagged.Entries {
		if e.Kind == "note" && !hasTag(e.Tags, "pricing") {
			t.Fatalf("tag filter let through %+v", e)
		}
	}
	// camille (acme read, acme/launch write) sees acme's root but not the platform project.
	root, _ := v.ListNotes(camille, ListArgs{Project: "acme"})
	for _, e := range root.Entries {
		if e.Path == "acme/infra" {
			t.Fatal("camille sees the platform project's folder")
		}
	}
}

// Every principal access.ValidPrincipal accepts is a folder name a write
// may create (people/<p>/), by the vault's own rule for new names; the
// principal rule is written apart (package access imports nothing of the
// vault), so this keeps the two from drifting.
func TestValidPrincipalsAreSafeFolderNames(t *testing.T) {
	var names []string
	for _, base := range []string{"con", "prn", "aux", "nul", "com", "lpt", "conin$", "a", "sam", "x.y", "a-b_c"} {
		names = append(names, base)
		for _, d := range []string{"0", "1", "9", "\u00b9"} {
			names = append(names, base+d, base+d+".txt", base+d+".")
		}
		names = append(names, base+".", base+".md", base+"..", "."+base, "-"+base)
	}
	accepted := 0
	for _, p := range names {
		if access.ValidPrincipal(p) != nil {
			continue
		}
		accepted++
		if err := safeNewName(p); err != nil {
			t.Errorf("access.ValidPrincipal accepts %q, which is no safe folder name: %v", p, err)
		}
	}
	for _, p := range []string{"sam", "a-b_c", "x.y", "com10"} {
		if err := access.ValidPrincipal(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	if accepted < 20 {
		t.Fatalf("only %d of %d names accepted: the list tests nothing", accepted, len(names))
	}
}
