package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writePlainNotes writes every turn the way any agent might, with nothing
// cairn-specific: one note per turn in its conversation's project folder,
// titled by its dialogue id, the body "Speaker (date): text" (and a shared
// photo's caption), with no frontmatter and no links. Search gets no
// speaker, session, date or sequence from structure: what it finds, it
// finds from the words (issue 15). With -names hashed, the same notes
// are named and titled by a hash of the turn instead of its number.
func writePlainNotes(dir string, samples []sample) (int, error) {
	n := 0
	for _, s := range samples {
		proj, err := conversationProject(dir, s.ID)
		if err != nil {
			return 0, err
		}
		sessions, err := sessionsOf(s)
		if err != nil {
			return 0, err
		}
		for _, ss := range sessions {
			for _, t := range ss.turns {
				body := fmt.Sprintf("%s (%s): %s", t.Speaker, ss.when, t.Text)
				if t.Caption != "" {
					body += " (shares a photo: " + t.Caption + ")"
				}
				title, name := t.DiaID, strings.Replace(t.DiaID, ":", "-", 1)+".md"
				if hashedNames {
					// Names that carry no order: the same notes, their
					// title and file a hash of the turn.
					sum := sha1.Sum([]byte(s.ID + " " + t.DiaID))
					title = hex.EncodeToString(sum[:6])
					name = title + ".md"
					hashedDia[name] = t.DiaID
				}
				note := fmt.Sprintf("# %s\n\n%s\n", title, body)
				if err := os.WriteFile(filepath.Join(proj, name), []byte(note), 0o644); err != nil {
					return 0, fmt.Errorf("%s %s: %w", s.ID, t.DiaID, err)
				}
				n++
			}
		}
	}
	return n, nil
}

// hashedNames: -names hashed; hashedDia maps such a note's file name to
// its turn.
var (
	hashedNames bool
	hashedDia   = map[string]string{}
)
