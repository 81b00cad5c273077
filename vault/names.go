package vault

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A vault is a git repository that people clone on Linux, macOS and
// Windows. Every name cairn creates — a note's file name made from its
// title, a folder a write creates, a bank or principal folder — must check
// out everywhere, mean one thing, and read as what it is. The rules (see
// docs/names-and-ids.md, "Names"):
//
//   - no character Windows refuses (< > : " / \ | ? * and controls), none
//     that wikilinks cannot carry (# ^ [ ]) in a file name;
//   - no Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, their
//     superscript-digit forms, CONIN$, CONOUT$), also with an extension
//     ("con.txt.md" is CON to Windows);
//   - no name ending in a dot or a space (Windows drops them, so two
//     names would become one);
//   - no name that differs from an existing sibling only by case or
//     Unicode normalisation (macOS and Windows disks would take them for
//     one file; git would then report one as always modified);
//   - no invisible or bidi control character (see invisible).

// maxStemBytes bounds a file name made from a title, less ".md": file
// systems allow 255 bytes a name, and a shorter one leaves room for the
// folders within Windows' classic 260-character path limit.
const maxStemBytes = 200

// invisible reports the characters refused in titles and paths because
// they make a name read as another: the bidi controls (U+202A–U+202E,
// U+2066–U+2069, U+200E/U+200F, U+061C), which reorder what follows
// ("Invoice \u202Efdp.exe" shows as "Invoice exe.pdf"); zero-width and
// invisible characters (U+200B, U+2060–U+2064, U+FEFF, U+00AD, ...), which
// make two names that look the same; every other Unicode format character
// (category Cf); and the line and paragraph separators U+2028/U+2029,
// which break a title's one line. Kept: the zero-width non-joiner and
// joiner U+200C/U+200D (Persian, Indic scripts and emoji sequences need
// them) and the tag characters U+E0020–U+E007F (emoji subdivision flags).
func invisible(r rune) bool {
	switch {
	case r == '\u200c' || r == '\u200d':
		return false
	case r >= 0xE0020 && r <= 0xE007F:
		return false
	case r == '\u2028' || r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// checkVisible refuses text holding an invisible or bidi control character.
func checkVisible(arg, s string) error {
	for _, r := range s {
		if invisible(r) {
			return argErr(arg, "%q contains U+%04X, an invisible or bidi control character, which would make it read as something else", s, r)
		}
	}
	return nil
}

// reservedNames are the device names Windows reserves in every folder.
var reservedNames = func() map[string]bool {
	m := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3"} {
		m["COM"+d], m["LPT"+d] = true, true
	}
	return m
}()

// windowsReserved reports a name Windows takes for a device: a reserved
// name alone or followed by an extension, ignoring case and the spaces
// before the first dot ("nul .txt" too).
func windowsReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	return reservedNames[strings.ToUpper(strings.TrimRight(base, " "))]
}

// safeNewName checks one name (a folder or a file) that a write would
// create. Its errors say what is wrong, without the argument.
func safeNewName(name string) error {
	switch {
	case name == "":
		return errors.New("is empty")
	case windowsReserved(name):
		return fmt.Errorf("%q is a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, also with an extension)", name)
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return fmt.Errorf("%q ends with a dot or a space, which Windows drops", name)
	case len(name) > 255:
		return fmt.Errorf("%q is longer than 255 bytes", name)
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune(`<>:"|?*\/`, r) || unicode.IsControl(r):
			return fmt.Errorf("%q contains %q, which Windows does not allow in a name", name, r)
		case invisible(r):
			return fmt.Errorf("%q contains U+%04X, an invisible or bidi control character", name, r)
		}
	}
	return nil
}

// fileStem is what is left of a title for a file name: the characters
// file systems or wikilinks cannot carry become spaces, invisible ones go,
// runs of spaces become one, leading dots and spaces go (a leading dot
// hides a file), and it is cut to maxStemBytes at a character boundary.
// It may be "".
func fileStem(title string) string {
	var b strings.Builder
	for _, r := range title {
		switch {
		case strings.ContainsRune(`/\:*?"<>|#^[]`, r), unicode.IsControl(r):
			b.WriteRune(' ')
		case invisible(r):
		default:
			b.WriteRune(r)
		}
	}
	name := strings.TrimLeft(strings.Join(strings.Fields(b.String()), " "), ". ")
	if len(name) > maxStemBytes {
		cut := maxStemBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = strings.TrimRight(name[:cut], " ")
	}
	return name
}

// FileName turns a title into a note file name, Obsidian style: the title
// itself, less what file systems and wikilinks cannot carry (fileStem). A
// title that leaves no name, or only a name Windows reserves, is refused
// rather than given a made-up name ("Untitled") that the next such title
// would collide with.
func FileName(title string) (string, error) {
	stem := fileStem(title)
	if stem == "" {
		return "", fmt.Errorf("the title %q leaves no file name once the characters files and links cannot carry (/ \\ : * ? \" < > | # ^ [ ], leading dots) are removed; give it letters or digits", title)
	}
	if windowsReserved(stem) {
		return "", fmt.Errorf("the title %q would make the file %q, a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, also with an extension); choose another title", title, stem+".md")
	}
	return stem + ".md", nil
}

// titleFile checks a title a caller gave (a new note's H1, rename_note's
// title) and returns its file name; errors name arg.
func titleFile(arg, title string) (string, error) {
	if err := validText(arg, title); err != nil {
		return "", err
	}
	if err := checkVisible(arg, title); err != nil {
		return "", err
	}
	if strings.IndexFunc(title, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0 {
		// An escape sequence in a title would reach terminals (git log, ls).
		return "", argErr(arg, "the title %q contains a control character", title)
	}
	name, err := FileName(title)
	if err != nil {
		return "", argErr(arg, "%v", err)
	}
	return name, nil
}

// caseTwin finds an entry of folder dir whose name differs from name only
// by case or Unicode normalisation (what a macOS or Windows checkout takes
// for the same file), other than self; "" when there is none. It reads the
// folder itself: on a case-insensitive disk a stat would find the twin
// under the new spelling.
func (v *Vault) caseTwin(dir, name, self string) string {
	f, err := os.Open(v.abs(dir))
	if err != nil {
		return ""
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	want := norm.NFC.String(name)
	for _, n := range names {
		if n != name && n != self && strings.EqualFold(norm.NFC.String(n), want) {
			return strings.TrimPrefix(dir+"/"+n, "/")
		}
	}
	return ""
}

// hasEntry says whether folder dir holds an entry spelt exactly name.
func (v *Vault) hasEntry(dir, name string) bool {
	f, err := os.Open(v.abs(dir))
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// checkNewFolder checks the folders of dir (a clean vault path) that a
// write would create: each must be a name every system accepts and must not
// differ only by case from a folder already there (which is named, so the
// caller can use it). Existing folders pass as they are spelt.
func (v *Vault) checkNewFolder(arg, dir string) error {
	if dir == "" {
		return nil
	}
	parent := ""
	for _, seg := range strings.Split(dir, "/") {
		if !v.hasEntry(parent, seg) {
			if err := safeNewName(seg); err != nil {
				return argErr(arg, "%q: a new folder %v", dir, err)
			}
			if twin := v.caseTwin(parent, seg, ""); twin != "" {
				return argErr(arg, "%q: the folder %s already exists and differs only by case; use its spelling (macOS and Windows would take the two for one)", dir, twin)
			}
		}
		parent = strings.TrimPrefix(parent+"/"+seg, "/")
	}
	return nil
}

// checkNoTwin refuses a new file or folder name in dir that differs from an
// existing entry (other than self) only by case; arg names the argument,
// what says which name ("the note", "the folder").
func (v *Vault) checkNoTwin(arg, dir, name, self string) error {
	if twin := v.caseTwin(dir, name, self); twin != "" {
		return argErr(arg, "%s %s already exists and differs from %q only by case; macOS and Windows would take the two for one", kindOf(twin), twin, name)
	}
	return nil
}

func kindOf(p string) string {
	if strings.HasSuffix(p, ".md") {
		return "the note"
	}
	return "the entry"
}

// foldName is a name as a case-insensitive disk compares it (close enough
// to NTFS's upper-casing and APFS's folding): normalised, then case folded.
func foldName(s string) string { return strings.ToLower(strings.ToUpper(norm.NFC.String(s))) }

// folderSpellings remembers how the folders of a batch's notes are spelt,
// so that two notes of one batch cannot create two folders that differ
// only by case (neither exists yet, so the disk cannot tell).
type folderSpellings map[string]string

func (f folderSpellings) add(dir string) {
	for ; dir != ""; dir = parentDir(dir) {
		f[foldName(dir)] = dir
	}
}

// clash is a folder of the batch that dir or one of its parents would
// duplicate but for case ("" when none).
func (f folderSpellings) clash(dir string) string {
	for ; dir != ""; dir = parentDir(dir) {
		if had, ok := f[foldName(dir)]; ok && had != dir {
			return had
		}
	}
	return ""
}

// checkDest refuses a destination a move or rename would take: one that
// exists (other than self, which a case-only rename finds under its new
// spelling on a case-insensitive disk) or that differs only by case from
// an entry of its folder.
func (v *Vault) checkDest(arg, dest, self string) error {
	if v.otherEntry(dest, self) {
		return argErr(arg, "%s already exists; nothing was moved", dest)
	}
	return v.checkNoTwin(arg, parentDir(dest), baseName(dest), baseName(self))
}

// otherEntry says whether p exists and is not self: a case-only rename
// finds itself under the new spelling on a case-insensitive disk, and
// must not take itself for another file.
func (v *Vault) otherEntry(p, self string) bool {
	fi, err := os.Lstat(v.abs(p))
	if err != nil {
		return false
	}
	si, err := os.Lstat(v.abs(self))
	return err != nil || !os.SameFile(fi, si)
}

func baseName(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// validText refuses invalid UTF-8 and NUL bytes in text meant for a note.
func validText(arg, s string) error {
	if !utf8.ValidString(s) {
		return argErr(arg, "is not valid UTF-8")
	}
	if strings.ContainsRune(s, 0) {
		return argErr(arg, "contains a NUL character")
	}
	return nil
}
