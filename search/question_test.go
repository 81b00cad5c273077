package search

import (
	"context"
	"slices"
	"testing"
)

// A help vault, English and French, written with its questions and
// their answers before any was run. Titles hold question words ("How",
// "note", "Comment", "Faire") on notes that are not the answers.
var helpVault = []*Doc{
	{Path: "help/math.md", Title: "Advanced formatting syntax", Body: "Math: add math expressions to your notes with MathJax and the LaTeX notation, between two dollar signs."},
	{Path: "help/new-note.md", Title: "Create a new note", Body: "Press Ctrl+N to create a note in the current folder, then start to write."},
	{Path: "help/daily.md", Title: "Daily note", Body: "The daily note opens today's note from your template."},
	{Path: "help/composer.md", Title: "Note composer", Body: "Merge one note into another, or extract a selection into a new note."},
	{Path: "help/tables.md", Title: "Tables", Body: "Make a table with vertical bars and hyphens: the first row is the header. Align a column with colons."},
	{Path: "help/storage.md", Title: "How Obsidian stores data", Body: "Your notes are plain Markdown files in a folder of your disk; settings are in a hidden folder."},
	{Path: "help/links.md", Title: "How to link notes", Body: "Type two square brackets to link to another note; the link follows the note when it is renamed."},
	{Path: "help/format.md", Title: "Basic formatting syntax", Body: "Bold, italic, lists, quotes and code blocks. To make text bold, put two asterisks around it."},
	{Path: "aide/table.md", Title: "Créer une table", Body: "Séparez les colonnes par des barres verticales ; la première ligne donne les en-têtes."},
	{Path: "aide/synchro.md", Title: "Comment fonctionne la synchronisation", Body: "Vos notes sont copiées sur chaque appareil, chiffrées de bout en bout."},
	{Path: "aide/sauvegarde.md", Title: "Faire une sauvegarde", Body: "Copiez le dossier du coffre sur un disque externe une fois par semaine."},
	{Path: "aide/lecture.md", Title: "Mode lecture", Body: "Le mode lecture affiche la note mise en forme, sans la syntaxe Markdown."},
	{Path: "aide/cairn.md", Title: "Qu'est-ce que Cairn ?", Body: "Un serveur pour vos carnets, qui les garde dans git."},
}

// Natural questions rank the note about their subject first, in English
// and in French, with or without accents: the words that only frame the
// question, and a title holding one of them, do not decide.
func TestQuestionsFindTheirSubject(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	for _, d := range helpVault {
		d.Scope = "s"
	}
	if err := ix.Apply(versioned(helpVault), nil); err != nil {
		t.Fatal(err)
	}
	// The answers, as written first. A French question about tables
	// finds the English note on tables as well as the French one: the
	// English one, whose body says "table" too, may come first (the
	// vault is both languages; the question's words decide, not its
	// language), but no note that only shares its scaffolding.
	tables := []string{"aide/table.md", "help/tables.md"}
	cases := map[string][]string{
		"write math equations in a note":     {"help/math.md"},
		"how to make a table":                {"help/tables.md"},
		"How do I make a table?":             {"help/tables.md"},
		"comment faire une table ?":          tables,
		"Comment créer une table":            {"aide/table.md"},
		"qu'est-ce que le mode lecture ?":    {"aide/lecture.md"},
		"Qu’est-ce que le mode lecture":      {"aide/lecture.md"},
		"comment faire une sauvegarde":       {"aide/sauvegarde.md"},
		"how does the synchronisation work?": {"aide/synchro.md"},
	}
	// Notes that share only scaffolding with a question are no answer.
	scaffoldOnly := map[string][]string{
		"write math equations in a note":  {"help/daily.md", "help/composer.md"},
		"how to make a table":             {"help/storage.md", "help/links.md"},
		"comment faire une table ?":       {"aide/synchro.md", "aide/sauvegarde.md"},
		"qu'est-ce que le mode lecture ?": {"aide/cairn.md"},
	}
	for q, want := range cases {
		r, err := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(r)
		for _, p := range scaffoldOnly[q] {
			if slices.Contains(got, p) {
				t.Errorf("%q: %s shares only the question's scaffolding, got %v", q, p, got)
			}
		}
		if len(got) < len(want) || !slices.Contains(want, got[0]) {
			t.Errorf("%q: got %v, want %v first", q, got, want)
			continue
		}
		for _, p := range got[:len(want)] {
			if !slices.Contains(want, p) {
				t.Errorf("%q: got %v, want %v first", q, got, want)
			}
		}
	}
}

// The question's language is the one with more stop words, at least two;
// only its stop words go, and never all the words.
func TestScaffoldingNeedsEvidence(t *testing.T) {
	cases := map[string]string{
		"how to make a table":             "       make   table",
		"comment faire une table ?":       "                  table ?",
		"Qu'est-ce que le mode lecture ?": "      -          mode lecture ?",
		// "son" is a French stop word, but one is no evidence.
		"Melanie's son": "Melanie's son",
		// English: "son" stays, a word of the question.
		"What did Melanie's son do?": "         Melanie's son   ?",
		// Nothing would be left.
		"a note":       "a note",
		"the":          "the",
		"café au lait": "café au lait",
	}
	for in, want := range cases {
		if got, _ := splitScaffolding(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
	if _, s := splitScaffolding("Qu’est-ce que le mode lecture"); s != "Qu’est ce que le" {
		t.Errorf("scaffolding: %q", s)
	}
}

// The scaffolding still scores beside the content: of two notes about
// camping, the one that also says "she" answers "When did she go
// camping?" first; a note that shares only "when", "did" and "she" is no
// hit at all.
func TestScaffoldingScoresBesideContent(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	docs := []*Doc{
		{Path: "gear.md", Title: "Gear", Body: "Camping gear list: a tent and a stove.", Scope: "s"},
		{Path: "trip.md", Title: "Trip", Body: "She went camping with the kids last May.", Scope: "s"},
		{Path: "call.md", Title: "Call", Body: "When did she call? She did, at noon.", Scope: "s"},
	}
	if err := ix.Apply(versioned(docs), nil); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Search(context.Background(), Query{Text: "When did she go camping?", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(r); len(got) != 2 || got[0] != "trip.md" || got[1] != "gear.md" {
		t.Errorf("got %v, want trip.md then gear.md", got)
	}
}
