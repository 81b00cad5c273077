package search

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// BenchmarkBuildLexical indexes 2,000 generated notes of ~300 words in
// steps of 250, as a vault's first build does, without vectors: the
// share of a build that is Bleve's (analysis in both languages, segments,
// merges). go test ./search -run '^$' -bench BuildLexical -benchtime 3x
func BenchmarkBuildLexical(b *testing.B) {
	words := strings.Fields("the launch pricing team decided pilot customers twenty first market release plan notes meeting budget quarter review design search index vault agent memory people project folder link graph write commit history sync remote clone lundi réunion décision clients pilotes lancement prix équipe marché semaine projet")
	rng := rand.New(rand.NewSource(1))
	docs := make([]*Doc, 2000)
	for i := range docs {
		var body strings.Builder
		for w := 0; w < 300; w++ {
			body.WriteString(words[rng.Intn(len(words))])
			if w%12 == 11 {
				body.WriteString(".\n")
			} else {
				body.WriteByte(' ')
			}
		}
		docs[i] = &Doc{Path: fmt.Sprintf("acme/n%05d.md", i), Version: "1", ID: fmt.Sprint(i), Title: fmt.Sprintf("Note %d", i),
			Tags: []string{"t" + fmt.Sprint(i%7)}, Scope: "p:acme", Date: time.Unix(int64(i), 0), Body: body.String()}
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		ix, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i := 0; i < len(docs); i += 250 {
			if err := ix.Apply(docs[i:min(i+250, len(docs))], nil); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
}
