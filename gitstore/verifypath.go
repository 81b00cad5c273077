package gitstore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// This file holds the rules a path must pass before cairn writes it into
// the work tree or a tree: git's own (verify_path in read-cache.c, with
// core.protectNTFS and core.protectHFS both on, as a vault is shared
// between machines of every kind), and a few more of cairn's, each said
// where it is checked. A fetched commit passes them path by path before a
// sync writes anything (incoming.go); git's checkout refuses the same
// paths, cairn's own writes never make them.

// maxNameBytes is the longest name a file system takes (NAME_MAX).
const maxNameBytes = 255

// maxPathBytes is the longest path a commit may write (PATH_MAX, less
// room for the vault's own folder).
const maxPathBytes = 3072

// PathError says why a path is refused.
type PathError struct {
	Path string
	Why  string
}

func (e *PathError) Error() string { return fmt.Sprintf("path %s: %s", QuotePath(e.Path), e.Why) }

// VerifyPath refuses what git's verify_path refuses (with protectNTFS and
// protectHFS on): an empty path or name (a leading, trailing or doubled
// slash), "." and "..", ".git" in any case, and the names that become
// ".git" on NTFS ("git~1", trailing dots and spaces) or on HFS+ (".git"
// with code points HFS+ ignores between its letters). It also refuses,
// beyond git: a backslash (a folder separator on Windows, where "..\x"
// leaves the vault), a control character (it would print as something
// else), a name over 255 bytes and a path over 3,072 (no file system
// takes them). The mode is checked by CheckMode.
func VerifyPath(p string) error {
	if p == "" {
		return &PathError{Path: p, Why: "is empty"}
	}
	if len(p) > maxPathBytes {
		return &PathError{Path: p, Why: fmt.Sprintf("is longer than %d bytes", maxPathBytes)}
	}
	rest := p
	for {
		name, tail, more := strings.Cut(rest, "/")
		if why := nameProblem(name); why != "" {
			return &PathError{Path: p, Why: why}
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// nameProblem says what is wrong with one name of a path ("" when
// nothing is).
func nameProblem(name string) string {
	switch {
	case name == "":
		return "has an empty name (a leading, trailing or doubled slash)"
	case name == "." || name == "..":
		return fmt.Sprintf("has a %q name, which names a folder itself or its parent", name)
	case len(name) > maxNameBytes:
		return fmt.Sprintf("has a name longer than %d bytes", maxNameBytes)
	case len(name) == 4 && name[0] == '.' && equalFoldASCII(name[1:], "git"):
		return "has a .git name, which is the repository itself"
	case isHFSDotGit(name):
		return "has a name that macOS reads as .git (HFS+ ignores the invisible characters in it)"
	case isNTFSDotGit(name):
		return "has a name that Windows reads as .git (NTFS drops trailing dots and spaces and reads git~1 as .git)"
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < 0x20 || c == 0x7f:
			return "has a control character in a name"
		case c == '\\':
			return "has a backslash, a folder separator on Windows"
		}
	}
	return ""
}

// isNTFSDotGit is git's is_ntfs_dotgit: ".git" or "git~1" in any case,
// followed only by dots and spaces (NTFS drops them), then perhaps by an
// alternate data stream (":...").
func isNTFSDotGit(name string) bool {
	var rest string
	switch {
	case len(name) >= 4 && name[0] == '.' && equalFoldASCII(name[1:4], "git"):
		rest = name[4:]
	case len(name) >= 5 && equalFoldASCII(name[:3], "git") && name[3:5] == "~1":
		rest = name[5:]
	default:
		return false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '.', ' ':
		case ':':
			return true
		default:
			return false
		}
	}
	return true
}

// isHFSDotGit is git's is_hfs_dotgit: ".git" once the code points HFS+
// ignores are dropped and ASCII is folded to lower case. Like git, it
// reads bytes that are not UTF-8 as the end of the name.
func isHFSDotGit(name string) bool {
	const want = ".git"
	i := 0
	for len(name) > 0 {
		r, n := utf8.DecodeRuneInString(name)
		if r == utf8.RuneError && n <= 1 {
			break
		}
		name = name[n:]
		if hfsIgnored(r) {
			continue
		}
		if i == len(want) || r > 127 || toLowerASCII(byte(r)) != want[i] {
			return false
		}
		i++
	}
	return i == len(want)
}

// hfsIgnored are the code points HFS+ leaves out of a name (git's
// next_hfs_char).
func hfsIgnored(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// equalFoldASCII compares s with lower, folding ASCII letters only (git's
// tolower: no Unicode folding turns another letter into one of these).
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if toLowerASCII(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

func toLowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// CheckMode refuses every tree entry mode but a file (100644; 100755,
// executable; 100664, an old spelling of 100644) and a folder: a symbolic
// link (120000) would make the vault lead elsewhere (cairn shares files,
// not links), a submodule (160000) is another repository.
func CheckMode(m filemode.FileMode) string {
	switch m {
	case filemode.Regular, filemode.Executable, filemode.Deprecated, filemode.Dir:
		return ""
	case filemode.Symlink:
		return "is a symbolic link (cairn shares files, not links)"
	case filemode.Submodule:
		return "is a submodule (a gitlink to another repository)"
	}
	return fmt.Sprintf("has mode %o, which is no file or folder", uint32(m))
}

// QuotePath is a path as cairn prints it: as it is, or, when it holds a
// control character, a backslash, a double quote, an invisible or bidi
// code point or bytes that are not UTF-8, in double quotes with those
// escaped (as git's core.quotePath does), so that a name can never print
// as another, forge a line or drive the terminal.
func QuotePath(p string) string {
	quoted := func(r rune) bool { return r == '"' || r == '\\' }
	if clean(p, quoted, nil) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	escape(&b, p, quoted, nil)
	b.WriteByte('"')
	return b.String()
}

// Printable is s with its control characters (newline and tab among them,
// unless keepLines), invisible and bidi code points and bytes that are not
// UTF-8 escaped (\n, \x1b, \u0085, \u202e; the last two forms are JSON's
// too, so JSON stays JSON): text that came from files or a remote,
// safe to print on a terminal as one line (or as lines, with keepLines).
func Printable(s string, keepLines bool) string {
	var keep func(rune) bool
	if keepLines {
		keep = func(r rune) bool { return r == '\n' || r == '\t' }
	}
	if clean(s, nil, keep) {
		return s
	}
	var b strings.Builder
	escape(&b, s, nil, keep)
	return b.String()
}

// clean says s needs no escaping: no byte that is not UTF-8, no rune
// quoted says, no unprintable code point but those keep takes.
func clean(s string, quoted, keep func(rune) bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, quoted != nil && quoted(r):
			return false
		case unprintable(r) && (keep == nil || !keep(r)):
			return false
		}
		i += n
	}
	return true
}

// unprintable: C0 and C1 controls, DEL, and the code points that print
// as nothing or turn the text around them (bidi controls).
func unprintable(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || hfsIgnored(r) ||
		r == 0x2028 || r == 0x2029 || (r >= 0x2066 && r <= 0x2069) || r == 0x061c || r == 0x00ad || r == 0x200b
}

// escape writes s to b with bytes that are not UTF-8, unprintable code
// points (but those keep takes) and the runes quoted says escaped.
func escape(b *strings.Builder, s string, quoted, keep func(rune) bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case keep != nil && keep(r):
			b.WriteRune(r)
		case quoted != nil && quoted(r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && unprintable(r):
			fmt.Fprintf(b, `\x%02x`, r)
		case unprintable(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
}

// FoldPath is path p as a file system that ignores case (macOS, Windows),
// the code points HFS+ ignores, and the trailing dots and spaces and
// stream names NTFS drops, reads it: two paths with the same FoldPath are
// one file on some member's machine.
func FoldPath(p string) string {
	names := strings.Split(p, "/")
	for i, name := range names {
		name = strings.Map(func(r rune) rune {
			if hfsIgnored(r) {
				return -1
			}
			return r
		}, name)
		if j := strings.IndexByte(name, ':'); j >= 0 {
			name = name[:j]
		}
		names[i] = strings.ToLower(strings.TrimRight(name, ". "))
	}
	return strings.Join(names, "/")
}
