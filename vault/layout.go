package vault

import (
	"path"
	"strings"

	"github.com/cairn-dev/cairn/vault/access"
)

// Fixed places in a vault (see docs/vault-format.md).
const (
	CairnDir      = ".cairn"
	ConfigFile    = ".cairn/config.yaml"
	AccessFile    = access.File      // who may do what (access.Access)
	LocalFile     = access.LocalFile // this machine's settings, never committed (access.Local)
	SecretsDir    = ".cairn/secrets" // never committed: tokens, grants, passwords, OAuth keys
	TokensFile    = ".cairn/secrets/tokens.json"
	CacheDir      = ".cairn/cache"
	TrashDir      = ".cairn/trash" // deleted notes (trash.go); .trash/ is Obsidian's
	PeopleDir     = "people"
	BanksDir      = "banks"
	ProjectMarker = ".cairn-project.yaml"
	ProfileFile   = "profile.md"
	ThoughtsDir   = "thoughts" // people/<p>/thoughts/<space>/: captured thoughts
	// MaxNoteBytes bounds one note's content; larger bodies are refused.
	MaxNoteBytes = 1 << 20
)

// gitignoreLines keep derived state, secrets and this machine's settings
// out of git.
var gitignoreLines = []string{".cairn/cache/", ".cairn/secrets/", LocalFile}

// classOf derives a note's class from its path.
func classOf(p string) string {
	if owner, rest, ok := personalPath(p); ok && owner != "" {
		if rest == ProfileFile {
			return ClassUserProfile
		}
		if strings.HasPrefix(rest, ThoughtsDir+"/") {
			return ClassUserThought
		}
		return ClassAgentMemory
	}
	return ClassUserDoc
}

// personalPath splits people/<principal>/<rest>.
func personalPath(p string) (principal, rest string, ok bool) {
	if !strings.HasPrefix(p, PeopleDir+"/") {
		return "", "", false
	}
	principal, rest, _ = strings.Cut(p[len(PeopleDir)+1:], "/")
	return principal, rest, true
}

// bankPath splits banks/<bank>/<rest>.
func bankPath(p string) (bank, rest string, ok bool) {
	if !strings.HasPrefix(p, BanksDir+"/") {
		return "", "", false
	}
	bank, rest, _ = strings.Cut(p[len(BanksDir)+1:], "/")
	return bank, rest, bank != ""
}

// hiddenSegment reports whether a path has a segment no tool may touch:
// dot-folders (.git, .cairn, .trash, .obsidian, ...) and dotfiles.
func hiddenSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// isNotePath reports whether a vault path is a note the vault knows:
// catalogued, indexed, watched. Notes under banks/ are memory-bank facts,
// reached through the hindsight tools only (roleAt gives them to no one).
func isNotePath(p string) bool {
	return strings.HasSuffix(p, ".md") && !hiddenSegment(p)
}

// parentDir is the folder holding p ("" for the vault root).
func parentDir(p string) string {
	d := path.Dir(strings.Trim(p, "/"))
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// Note classes. The class comes from where a note lives, never from what a
// caller asks for (see classOf).
const (
	ClassUserDoc     = "user-doc"
	ClassAgentMemory = "agent-memory"
	ClassUserProfile = "user-profile"
	// ClassUserThought is a thought the user captured in their own words
	// (treaisure_capture_thought): people/<p>/thoughts/<space>/.
	ClassUserThought = "user-thought"
)
