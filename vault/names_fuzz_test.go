package vault

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// sampleNames adds the sample vault's file and folder names to a corpus.
func sampleNames(f *testing.F) {
	f.Helper()
	_ = filepath.WalkDir("../sample-vault", func(p string, d os.DirEntry, err error) error {
		if err == nil && p != "../sample-vault" {
			rel, _ := filepath.Rel("../sample-vault", p)
			f.Add(strings.TrimSuffix(filepath.ToSlash(rel), ".md"))
		}
		return nil
	})
}

var hostileNames = []string{
	"...", "..", ".", "/", "[[ ]]", `?*<>|:"\`, ". . .", "CON", "con.txt", "Nul .old", "COM\u00b9", "CONOUT$",
	strings.Repeat("\uFFFD", 100), strings.Repeat("é", 150), strings.Repeat("👩\u200d💻", 40),
	"Invoice \u202efdp.exe", "\u2066x\u2069", "\ufeffBOM", "zero\u200bwidth", "soft\u00adhyphen",
	"a\x00b", "\xff\xfe", "line\u2028break", " .hidden", "trailing. ", "#^[]|", "\t\n\r",
}

// A title always gives a safe file name or a clear refusal: never a
// panic, never a separator, a device name, invalid UTF-8, an invisible
// character or more than maxStemBytes.
func FuzzFileName(f *testing.F) {
	sampleNames(f)
	for _, s := range hostileNames {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		stem := fileStem(title)
		name, err := FileName(title)
		if err != nil {
			if stem != "" && !windowsReserved(stem) {
				t.Fatalf("FileName(%q) refused a usable stem %q: %v", title, stem, err)
			}
			return
		}
		if name != stem+".md" || len(stem) > maxStemBytes || !utf8.ValidString(name) {
			t.Fatalf("FileName(%q) = %q (stem %q)", title, name, stem)
		}
		if err := safeNewName(name); err != nil {
			t.Fatalf("FileName(%q) = %q, not a safe name: %v", title, name, err)
		}
		if strings.ContainsAny(name, "#^[]") || strings.HasPrefix(name, ".") || stem != strings.TrimSpace(stem) {
			t.Fatalf("FileName(%q) = %q", title, name)
		}
		if again, err := FileName(stem); err != nil || again != name {
			t.Fatalf("FileName is not stable: %q → %q → %q, %v", title, name, again, err)
		}
		if tf, err := titleFile("title", title); err == nil && tf != name {
			t.Fatalf("titleFile(%q) = %q, FileName %q", title, tf, name)
		}
	})
}

// Thoughts and facts are named after their first words, whatever they
// are: the name is always safe.
func FuzzFileNameFrom(f *testing.F) {
	for _, s := range hostileNames {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		name := FileNameFrom(text, "01KB2ZJ5N3V7M1YB4E8W0QXR6T")
		if err := safeNewName(name); err != nil || !utf8.ValidString(name) || !strings.HasSuffix(name, " 0qxr6t.md") || strings.HasPrefix(name, ".") {
			t.Fatalf("FileNameFrom(%q) = %q: %v", text, name, err)
		}
	})
}

// cleanRel never accepts a path that escapes the vault, enters a hidden
// folder or reads as another (controls, bidi), and what it accepts is
// canonical.
func FuzzCleanRel(f *testing.F) {
	sampleNames(f)
	for _, s := range append(hostileNames, "acme/launch/", "../x", "a/../../b", "/etc", ".git/config", "a/.cairn/x",
		"a\\b", "a//b", "./a", "a/./b", "C:/x", "c:x", "//server/share", "people/x", "People/x", "BANKS/x",
		"%2e%2e/x", "a/\u202e/b", strings.Repeat("a/", 600), "a/"+strings.Repeat("b", 300)) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := cleanRel("path", p)
		if err != nil {
			if ae, ok := err.(*ArgError); !ok || ae.Arg != "path" {
				t.Fatalf("cleanRel(%q): an error not naming path: %v", p, err)
			}
			return
		}
		if got == "" {
			return
		}
		root := filepath.FromSlash("/vault/root")
		rel, err := filepath.Rel(root, filepath.Join(root, filepath.FromSlash(got)))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(got) {
			t.Fatalf("cleanRel(%q) = %q escapes the vault", p, got)
		}
		if path.Clean(got) != got || strings.HasPrefix(got, "/") || strings.Contains(got, "\\") || !utf8.ValidString(got) {
			t.Fatalf("cleanRel(%q) = %q is not canonical", p, got)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") {
				t.Fatalf("cleanRel(%q) = %q has segment %q", p, got, seg)
			}
		}
		for _, r := range got {
			if unicode.IsControl(r) || invisible(r) {
				t.Fatalf("cleanRel(%q) = %q keeps %U", p, got, r)
			}
		}
		if again, err := cleanRel("path", got); err != nil || again != got {
			t.Fatalf("cleanRel is not stable: %q → %q → %q, %v", p, got, again, err)
		}
	})
}
