package obsidianref

import "testing"

// The rules, one case each, on a small vault.
func TestResolveFollowsObsidiansRules(t *testing.T) {
	files := []string{"Home.md", "a/Spec.md", "b/Spec.md", "deep/er/Spec.md", "a/pic.png", "b/c/Note.md", "x/v1.2 Plan.md", "Report.pdf", "Report.pdf.md", "projects/alpha/Plan.md"}
	for _, c := range []struct{ src, link, want string }{
		{"Home.md", "home", "Home.md"},               // case ignored, .md optional
		{"Home.md", "Home.md", "Home.md"},            // .md allowed
		{"Home.md", "Spec", "a/Spec.md"},             // a tie at the head: the first loaded
		{"b/Other.md", "Spec", "b/Spec.md"},          // the source's folder (and what is under it) first
		{"b/c/Note.md", "Spec", "a/Spec.md"},         // not its parent folder: the first loaded of the two
		{"deep/Other.md", "Spec", "deep/er/Spec.md"}, // under the source's folder, though longer
		{"Home.md", "er/Spec", "deep/er/Spec.md"},    // a path suffix
		{"Home.md", "r/Spec", "deep/er/Spec.md"},     // a string suffix, not a segment
		{"b/c/Note.md", "../Spec", "b/Spec.md"},      // relative
		{"b/c/Note.md", "./Note", "b/c/Note.md"},     // relative to the folder itself
		{"Home.md", "/a/Spec", "a/Spec.md"},          // from the root
		{"Home.md", "/Spec", ""},                     // from the root, no such path
		{"Home.md", "pic.png", "a/pic.png"},          // an attachment, with its extension
		{"Home.md", "pic", ""},                       // without it: looked up as pic.md
		{"Home.md", "v1.2 Plan", "x/v1.2 Plan.md"},   // a dot in the name: pic.md tried after
		{"Home.md", "Report.pdf", "Report.pdf"},      // the file with that name first
		{"projects/a/Ref.md", "Plan", "projects/alpha/Plan.md"},
		{"Home.md", "Nothing", ""},
	} {
		got, ok := Resolve(files, c.src, c.link)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("[[%s]] from %s: %q %v, want %q", c.link, c.src, got, ok, c.want)
		}
	}
}

// Code, comments and external destinations are not links; every form is.
func TestLinksReadsEveryForm(t *testing.T) {
	body := "---\nup: \"[[Home]]\"\nrel: [\"[[A#H|x]]\", plain]\n---\n# T\n" +
		"[[N#H1#H2|l]] ![[p.png]] [t](My%20N.md#S) [u](<My N.md>) ![](a.pdf) [e](https://x.y) `[[c]]`\n" +
		"```\n[[f]]\n```\n\n    [[i]]\n\n%% [[h]] %% [[after]]\n%%\n[[hidden]]\n%%\n[r][ref]\n"
	var got []string
	for _, l := range Links([]byte(body)) {
		got = append(got, l.Property+":"+l.Path+"#"+l.Subpath)
	}
	want := "rel:A#H up:Home# :N#H1#H2 :p.png# :My N.md#S :My N.md# :a.pdf# :after#"
	s := ""
	for i, g := range got {
		if i > 0 {
			s += " "
		}
		s += g
	}
	if s != want {
		t.Fatalf("got  %s\nwant %s", s, want)
	}
}
